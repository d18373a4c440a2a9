package dev.bloomguard.spring.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

import dev.bloomguard.spring.web.BloomGuardRejectedExceptionHandler;
import dev.bloomguard.spring.web.BloomGuardShedExceptionHandler;

/**
 * Renders {@code BloomGuardRejectedException} as HTTP 404, and {@code BloomGuardShedException} as
 * HTTP 503 with Retry-After, in Spring MVC applications, as a ProblemDetail or as Spring Boot's
 * standard error body, following
 * {@code spring.mvc.problemdetails.enabled}; off with {@code bloom-guard.web.enabled=false}.
 */
@AutoConfiguration(after = BloomGuardAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(name = "org.springframework.web.servlet.DispatcherServlet")
@ConditionalOnProperty(prefix = "bloom-guard", name = { "enabled", "web.enabled" }, havingValue = "true",
        matchIfMissing = true)
public class BloomGuardWebMvcAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public BloomGuardRejectedExceptionHandler bloomGuardRejectedExceptionHandler(Environment environment) {
        return new BloomGuardRejectedExceptionHandler(
                environment.getProperty("spring.mvc.problemdetails.enabled", Boolean.class, false));
    }

    @Bean
    @ConditionalOnMissingBean
    public BloomGuardShedExceptionHandler bloomGuardShedExceptionHandler(Environment environment) {
        return new BloomGuardShedExceptionHandler(
                environment.getProperty("spring.mvc.problemdetails.enabled", Boolean.class, false));
    }
}
