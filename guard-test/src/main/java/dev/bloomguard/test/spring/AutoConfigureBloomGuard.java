package dev.bloomguard.test.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

/**
 * Gives a test slice bloom-guard as the application runs it, with its filters in Redis: the
 * starter's auto-configurations, Spring Boot's Redis auto-configuration (and, when
 * {@code spring-boot-testcontainers} is there, its {@code @ServiceConnection} support, so that a
 * {@code redis:7} container is where the filters go), and a {@link BloomGuardTester}. In a
 * {@code @SpringBootTest} of the whole application it adds only the tester.
 *
 * @see AutoConfigureBloomGuardInMemory the same without Redis
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
public @interface AutoConfigureBloomGuard {
}
