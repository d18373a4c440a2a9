package dev.bloomguard.spring.minimal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.util.ClassUtils;

import dev.bloomguard.spring.BloomGuard;
import dev.bloomguard.spring.BloomGuardRejectedException;
import dev.bloomguard.spring.RealServers;

/**
 * An application with none of the starter's optional dependencies: no Caffeine, no Micrometer and
 * no actuator, nor Guava, which the {@code minimal-tests} execution keeps off the class path. It
 * boots, warms its filter from SQL and guards.
 */
@SpringBootTest(classes = MinimalApplicationTests.App.class, webEnvironment = WebEnvironment.NONE, properties = {
        "bloom-guard.key-prefix=minimal",
        "bloom-guard.redis-timeout=5s",
        "bloom-guard.filters.user.expected-insertions=10000",
        "bloom-guard.filters.user.fpp=0.01",
        "bloom-guard.filters.user.warmup.sql=SELECT id FROM minimal_users",
        "bloom-guard.filters.user.warmup.blocking=true" })
class MinimalApplicationTests {

    /** Present ids are the even numbers 2..20,000; odd numbers were never inserted. */
    private static final int USERS = 10_000;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        RealServers.execute("DROP TABLE IF EXISTS minimal_users", "CREATE TABLE minimal_users (id BIGINT PRIMARY KEY)",
                "INSERT INTO minimal_users SELECT 2 * g FROM generate_series(1, " + USERS + ") g");
        RealServers.registerRedis(registry);
        RealServers.registerPostgres(registry);
    }

    @Autowired
    Users users;

    @Test
    void classPathHasNoneOfTheOptionalDependencies() {
        assertThat(ClassUtils.isPresent("com.github.benmanes.caffeine.cache.Caffeine", null)).as("Caffeine").isFalse();
        assertThat(ClassUtils.isPresent("io.micrometer.core.instrument.MeterRegistry", null)).as("Micrometer").isFalse();
        assertThat(ClassUtils.isPresent("org.springframework.boot.actuate.endpoint.annotation.Endpoint", null))
                .as("the actuator").isFalse();
        assertThat(ClassUtils.isPresent("com.google.common.base.Preconditions", null)).as("Guava").isFalse();
    }

    @Test
    void passesEveryPresentKeyAndBlocksAbsentOnes() {
        for (long id = 2; id <= 2L * USERS; id += 2) {
            assertThat(users.find(id)).isEqualTo("user " + id);
        }
        int calls = users.calls();
        int blocked = 0;
        for (long id = 1; id < 2L * USERS; id += 2) {
            try {
                users.find(id);
            }
            catch (BloomGuardRejectedException ex) {
                blocked++;
            }
        }
        // fpp 0.01: about 1 % of absent keys pass; 3 % leaves room for chance, not for a filter that blocks nothing.
        assertThat(blocked).isGreaterThanOrEqualTo(USERS * 97 / 100);
        assertThat(users.calls() - calls).isEqualTo(USERS - blocked);
        assertThatThrownBy(() -> users.find(-1)).isInstanceOf(BloomGuardRejectedException.class);
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {

        @Bean
        Users users() {
            return new Users();
        }
    }

    static class Users {

        private final AtomicInteger calls = new AtomicInteger();

        @BloomGuard(filter = "user", key = "#id")
        public String find(long id) {
            calls.incrementAndGet();
            return "user " + id;
        }

        public int calls() {
            return calls.get();
        }
    }
}
