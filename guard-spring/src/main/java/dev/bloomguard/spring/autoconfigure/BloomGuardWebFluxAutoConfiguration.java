package dev.bloomguard.spring.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;

import dev.bloomguard.spring.web.BloomGuardRejectedWebExceptionHandler;
import dev.bloomguard.spring.web.BloomGuardShedWebExceptionHandler;
import dev.bloomguard.spring.web.ReactiveBloomGuardRejectedExceptionHandler;
import dev.bloomguard.spring.web.ReactiveBloomGuardShedExceptionHandler;

/**
 * Renders {@code BloomGuardRejectedException}, thrown or signalled by a {@code Mono}/{@code Flux},
 * as HTTP 404, and {@code BloomGuardShedException} as HTTP 503 with Retry-After, in Spring WebFlux
 * applications: a ProblemDetail when
 * {@code spring.webflux.problemdetails.enabled}, otherwise Spring Boot's standard error body; off
 * with {@code bloom-guard.web.enabled=false}.
 */
@AutoConfiguration(after = BloomGuardAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass(name = "org.springframework.web.reactive.DispatcherHandler")
@ConditionalOnProperty(prefix = "bloom-guard", name = { "enabled", "web.enabled" }, havingValue = "true",
        matchIfMissing = true)
public class BloomGuardWebFluxAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(prefix = "spring.webflux.problemdetails", name = "enabled", havingValue = "true")
    public ReactiveBloomGuardRejectedExceptionHandler bloomGuardRejectedExceptionHandler() {
        return new ReactiveBloomGuardRejectedExceptionHandler();
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(prefix = "spring.webflux.problemdetails", name = "enabled", havingValue = "false",
            matchIfMissing = true)
    public BloomGuardRejectedWebExceptionHandler bloomGuardRejectedWebExceptionHandler() {
        return new BloomGuardRejectedWebExceptionHandler();
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(prefix = "spring.webflux.problemdetails", name = "enabled", havingValue = "true")
    public ReactiveBloomGuardShedExceptionHandler bloomGuardShedExceptionHandler() {
        return new ReactiveBloomGuardShedExceptionHandler();
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(prefix = "spring.webflux.problemdetails", name = "enabled", havingValue = "false",
            matchIfMissing = true)
    public BloomGuardShedWebExceptionHandler bloomGuardShedWebExceptionHandler() {
        return new BloomGuardShedWebExceptionHandler();
    }
}
