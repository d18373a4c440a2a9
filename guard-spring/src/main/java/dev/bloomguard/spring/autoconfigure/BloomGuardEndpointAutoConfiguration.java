package dev.bloomguard.spring.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.actuate.BloomGuardEndpoint;
import dev.bloomguard.spring.actuate.FilterStatusCache;
import dev.bloomguard.spring.warmup.FilterWarmer;

/**
 * The {@code bloomguard} actuator endpoint, when Spring Boot Actuator is present and the endpoint
 * is available (enabled and exposed; exposure is the application's choice, by default only
 * {@code health} is exposed over HTTP). Its access is read-only unless the application grants more.
 */
@AutoConfiguration(after = BloomGuardAutoConfiguration.class,
        afterName = "org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration")
@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
@ConditionalOnBean(BloomFilterRegistry.class)
@ConditionalOnAvailableEndpoint(endpoint = BloomGuardEndpoint.class)
@Import(FilterStatusCacheConfiguration.class)
public class BloomGuardEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public BloomGuardEndpoint bloomGuardEndpoint(FilterStatusCache statuses, ObjectProvider<FilterWarmer> warmer,
            BloomGuardProperties properties) {
        return new BloomGuardEndpoint(statuses, warmer.getIfUnique(), properties.getEndpoint().getRebuildCooldown());
    }
}
