package dev.bloomguard.spring.boot4;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

import dev.bloomguard.spring.actuate.BloomGuardHealth;
import dev.bloomguard.spring.actuate.FilterStatusCache;

/**
 * The {@code bloomGuard} health contributor on Spring Boot 4, whose health types moved to
 * {@code org.springframework.boot.health.contributor}; what it reports is {@link BloomGuardHealth}'s.
 */
public final class Boot4HealthIndicator implements HealthIndicator {

    private final BloomGuardHealth health;

    public Boot4HealthIndicator(FilterStatusCache statuses) {
        this.health = new BloomGuardHealth(statuses);
    }

    @Override
    public Health health() {
        BloomGuardHealth.Report report = health.report();
        return Health.status(report.up() ? Status.UP : Status.UNKNOWN).withDetails(report.details()).build();
    }
}
