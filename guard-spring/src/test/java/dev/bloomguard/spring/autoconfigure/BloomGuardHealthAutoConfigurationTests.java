package dev.bloomguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.bloomguard.core.FilterState;
import dev.bloomguard.core.RedisBloomFilter;
import dev.bloomguard.core.redis.CircuitBreaker;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.RealServers;
import dev.bloomguard.spring.actuate.BloomGuardHealthIndicator;
import dev.bloomguard.spring.actuate.FilterStatusCache;

class BloomGuardHealthAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RedisAutoConfiguration.class, BloomGuardAutoConfiguration.class,
                    BloomGuardHealthAutoConfiguration.class))
            .withPropertyValues(RealServers.redisProperties())
            .withPropertyValues("bloom-guard.key-prefix=health-autoconfig", "bloom-guard.redis-timeout=5s");

    @Test
    void contributesBloomGuardHealthByDefault() {
        runner.withPropertyValues("bloom-guard.filters.user.expected-insertions=1000").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(BloomGuardHealthIndicator.class);
            assertThat(context).hasSingleBean(FilterStatusCache.class);
            assertThat(context).getBean("bloomGuard").isSameAs(context.getBean(BloomGuardHealthIndicator.class));
        });
    }

    @Test
    void isUpWithPerFilterDetailsWhenEveryFilterIsReady() {
        runner.withPropertyValues("bloom-guard.filters.ready.expected-insertions=1000").run(context -> {
            context.getBean(BloomFilterRegistry.class).filter("ready").load(LongStream.rangeClosed(1, 500).boxed());
            context.getBean(FilterStatusCache.class).refreshAll();

            Health health = context.getBean(BloomGuardHealthIndicator.class).health();

            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(filterDetails(health, "ready")).containsEntry("state", FilterState.READY)
                    .containsEntry("circuit", CircuitBreaker.State.CLOSED)
                    .containsKeys("fillRatio", "estimatedFpp");
            assertThat((double) filterDetails(health, "ready").get("fillRatio")).isBetween(0.0, 1.0).isPositive();
        });
    }

    @Test
    void isUnknownNotDownWhileAFilterIsDegradedOrWarming() {
        runner.withPropertyValues("bloom-guard.filters.lost.expected-insertions=1000",
                "bloom-guard.filters.locked.expected-insertions=1000").run(context -> {
                    RedisBloomFilter locked = context.getBean(BloomFilterRegistry.class).filter("locked");
                    ScheduledExecutorService renewals = Executors.newSingleThreadScheduledExecutor();
                    try (RedisBloomFilter.LoadLease lease = locked.tryLockForLoad(Duration.ofSeconds(30), renewals)
                            .orElseThrow()) {
                        context.getBean(FilterStatusCache.class).refreshAll();

                        Health health = context.getBean(BloomGuardHealthIndicator.class).health();

                        assertThat(health.getStatus()).isEqualTo(Status.UNKNOWN);
                        assertThat(filterDetails(health, "lost")).containsEntry("state", FilterState.DEGRADED);
                        assertThat(filterDetails(health, "locked")).containsEntry("state", FilterState.WARMING);
                    }
                    finally {
                        renewals.shutdownNow();
                    }
                });
    }

    @Test
    void canBeSwitchedOff() {
        runner.withPropertyValues("bloom-guard.filters.user.expected-insertions=1000",
                "management.health.bloomguard.enabled=false").run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(BloomGuardHealthIndicator.class);
                    assertThat(context).doesNotHaveBean(FilterStatusCache.class);
                });
    }

    @Test
    void contributesNothingWithoutActuator() {
        runner.withPropertyValues("bloom-guard.filters.user.expected-insertions=1000")
                .withClassLoader(new FilteredClassLoader(HealthIndicator.class))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(BloomGuardHealthIndicator.class);
                });
    }

    @Test
    void backsOffFromAUserContributorOfTheSameName() {
        runner.withPropertyValues("bloom-guard.filters.user.expected-insertions=1000")
                .withUserConfiguration(OwnHealth.class)
                .run(context -> {
                    assertThat(context).doesNotHaveBean(BloomGuardHealthIndicator.class);
                    assertThat(context).hasBean("bloomGuardHealthIndicator");
                });
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> filterDetails(Health health, String filter) {
        return (Map<String, Object>) health.getDetails().get(filter);
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnHealth {

        @Bean
        HealthIndicator bloomGuardHealthIndicator() {
            return () -> Health.up().build();
        }
    }
}
