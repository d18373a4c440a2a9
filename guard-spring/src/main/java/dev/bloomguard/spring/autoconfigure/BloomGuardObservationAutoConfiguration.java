package dev.bloomguard.spring.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.metrics.GuardObservations;
import dev.bloomguard.spring.metrics.MicrometerGuardObservations;
import io.micrometer.observation.ObservationRegistry;

/**
 * Observes every guarded check and {@code @BloomPut} add ({@code bloomguard.check},
 * {@code bloomguard.put}) through the application's ObservationRegistry, so that a tracer shows
 * a rejected request's check in its trace. Without such a bean the interceptor observes nothing.
 */
@AutoConfiguration(after = BloomGuardAutoConfiguration.class, afterName = {
        // Spring Boot 3 and Spring Boot 4 names: Boot ignores the one that does not exist.
        "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration",
        "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration" })
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean({ ObservationRegistry.class, BloomFilterRegistry.class })
public class BloomGuardObservationAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public GuardObservations bloomGuardObservations(ObservationRegistry observationRegistry) {
        return new MicrometerGuardObservations(observationRegistry);
    }
}
