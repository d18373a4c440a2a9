package dev.bloomguard.spring.actuate;

import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;

/**
 * The {@code bloomGuard} health contributor on Spring Boot 3, whose health types live in
 * {@code org.springframework.boot.actuate.health}; what it reports is {@link BloomGuardHealth}'s.
 */
public final class BloomGuardHealthIndicator implements HealthIndicator {

    private final BloomGuardHealth health;

    public BloomGuardHealthIndicator(FilterStatusCache statuses) {
        this.health = new BloomGuardHealth(statuses);
    }

    @Override
    public Health health() {
        BloomGuardHealth.Report report = health.report();
        return Health.status(report.up() ? Status.UP : Status.UNKNOWN).withDetails(report.details()).build();
    }
}
