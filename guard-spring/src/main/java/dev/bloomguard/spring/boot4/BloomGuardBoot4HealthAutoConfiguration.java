package dev.bloomguard.spring.boot4;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.actuate.FilterStatusCache;
import dev.bloomguard.spring.autoconfigure.BloomGuardAutoConfiguration;
import dev.bloomguard.spring.autoconfigure.BloomGuardHealthAutoConfiguration;
import dev.bloomguard.spring.autoconfigure.FilterStatusCacheConfiguration;

/**
 * The {@code bloomGuard} health contributor on Spring Boot 4 (its health types live in
 * {@code spring-boot-health}); {@link BloomGuardHealthAutoConfiguration} is its Boot 3 twin. The
 * class condition is by name and read before this class is loaded, so Boot 3 never loads it.
 * Switched off with {@code management.health.bloomguard.enabled=false}, as on Boot 3.
 */
@AutoConfiguration(after = BloomGuardAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
@ConditionalOnBean(BloomFilterRegistry.class)
@ConditionalOnEnabledHealthIndicator("bloomguard")
@Import(FilterStatusCacheConfiguration.class)
public class BloomGuardBoot4HealthAutoConfiguration {

    /** Named so that the contributor shows as {@code bloomGuard} under {@code /actuator/health}. */
    @Bean(name = "bloomGuard")
    @ConditionalOnMissingBean(value = Boot4HealthIndicator.class,
            name = { "bloomGuard", "bloomGuardHealthIndicator", "bloomGuardHealthContributor" })
    public Boot4HealthIndicator bloomGuardHealthIndicator(FilterStatusCache statuses) {
        return new Boot4HealthIndicator(statuses);
    }
}
