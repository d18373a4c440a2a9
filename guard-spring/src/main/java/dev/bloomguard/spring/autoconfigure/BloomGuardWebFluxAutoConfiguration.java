package dev.bloomguard.spring.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;

import dev.bloomguard.spring.web.BloomGuardRejectedExceptionHandler;

/**
 * Renders {@code BloomGuardRejectedException}, thrown or signalled by a {@code Mono}/{@code Flux},
 * as HTTP 404 in Spring WebFlux applications: the same advice as under Spring MVC, which WebFlux
 * applies to annotated controllers and to functional endpoints ({@code RouterFunction}) alike.
 */
@AutoConfiguration(after = BloomGuardAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass(name = "org.springframework.web.reactive.DispatcherHandler")
@ConditionalOnProperty(prefix = "bloom-guard", name = "enabled", havingValue = "true", matchIfMissing = true)
public class BloomGuardWebFluxAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public BloomGuardRejectedExceptionHandler bloomGuardRejectedExceptionHandler() {
        return new BloomGuardRejectedExceptionHandler();
    }
}
