package dev.bloomguard.test.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

import dev.bloomguard.test.memory.InMemoryBitmapStore;

/**
 * Runs a test's application context with bloom-guard's filters in this JVM's memory
 * ({@link InMemoryBitmapStore}): no Redis is needed, and none is connected to by the starter. As
 * Spring Boot's {@code @AutoConfigureTestDatabase} is for a {@code DataSource}: put it on a
 * {@code @SpringBootTest}, or on a slice ({@code @SpringBootTest(classes = UserService.class)} or
 * {@code @WebMvcTest}, both tested here), which it also gives the starter's
 * auto-configurations (the advice behind {@code @BloomGuard}/{@code @BloomPut}, the warmer, the
 * HTTP 404 of a rejection) and a {@link BloomGuardTester}.
 *
 * <p>What a reader could get wrong: the filters are the context's, not the test method's. Spring
 * caches a test context between test classes, and keys preloaded or added by one test stay for the
 * next; a store shared with nothing else also means a test here never shows what several
 * instances of the application, or Redis failing, do. Filters still warm from their
 * {@code warmup.sql} when the context has the {@code DataSource}. A {@code BitmapStore} bean the
 * application declares itself is kept.
 *
 * @see AutoConfigureBloomGuard the same in a slice, with the filters in the application's Redis
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
public @interface AutoConfigureBloomGuardInMemory {
}
