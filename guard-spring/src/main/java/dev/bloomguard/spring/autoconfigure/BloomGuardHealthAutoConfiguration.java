package dev.bloomguard.spring.autoconfigure;

import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.actuate.BloomGuardHealthIndicator;
import dev.bloomguard.spring.actuate.FilterStatusCache;

/**
 * The {@code bloomGuard} health contributor on Spring Boot 3, when Spring Boot Actuator is
 * present; switched off with {@code management.health.bloomguard.enabled=false}. Boot 4 moved
 * the health types, so there {@code BloomGuardBoot4HealthAutoConfiguration} contributes instead;
 * the class condition is by name and read before this class is loaded, so Boot 4 never loads it.
 */
@AutoConfiguration(after = BloomGuardAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.actuate.health.HealthIndicator")
@ConditionalOnBean(BloomFilterRegistry.class)
@ConditionalOnEnabledHealthIndicator("bloomguard")
@Import(FilterStatusCacheConfiguration.class)
public class BloomGuardHealthAutoConfiguration {

    /** Named so that the contributor shows as {@code bloomGuard} under {@code /actuator/health}. */
    @Bean(name = "bloomGuard")
    @ConditionalOnMissingBean(value = BloomGuardHealthIndicator.class,
            name = { "bloomGuard", "bloomGuardHealthIndicator", "bloomGuardHealthContributor" })
    public BloomGuardHealthIndicator bloomGuardHealthIndicator(FilterStatusCache statuses) {
        return new BloomGuardHealthIndicator(statuses);
    }
}
