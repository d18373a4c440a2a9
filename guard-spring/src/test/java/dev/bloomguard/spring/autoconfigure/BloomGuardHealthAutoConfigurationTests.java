package dev.bloomguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.util.ReflectionUtils;

import dev.bloomguard.core.FilterState;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.redis.CircuitBreaker;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BootNames;
import dev.bloomguard.spring.RealServers;
import dev.bloomguard.spring.actuate.FilterStatusCache;
import dev.bloomguard.testsupport.Await;

/**
 * The {@code bloomGuard} health contributor on whichever Boot generation the tests run: Boot 3's
 * and Boot 4's health types differ only in package, so the contributor's {@code Health} is read
 * through its method names.
 */
class BloomGuardHealthAutoConfigurationTests {

    /** This generation's health auto-configuration, its contributor type and Boot's HealthIndicator. */
    private static final Class<?> AUTO_CONFIGURATION = BootNames.isBoot4()
            ? BootNames.first("dev.bloomguard.spring.boot4.BloomGuardBoot4HealthAutoConfiguration")
            : BloomGuardHealthAutoConfiguration.class;
    private static final Class<?> CONTRIBUTOR = BootNames.isBoot4()
            ? BootNames.first("dev.bloomguard.spring.boot4.Boot4HealthIndicator")
            : BootNames.first("dev.bloomguard.spring.actuate.BloomGuardHealthIndicator");
    private static final Class<?> HEALTH_INDICATOR = BootNames.first(
            "org.springframework.boot.actuate.health.HealthIndicator",
            "org.springframework.boot.health.contributor.HealthIndicator");

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BootNames.redisAutoConfiguration(), BloomGuardAutoConfiguration.class,
                    BloomGuardHealthAutoConfiguration.class, AUTO_CONFIGURATION))
            .withPropertyValues(RealServers.redisProperties())
            .withPropertyValues("bloom-guard.key-prefix=health-autoconfig", "bloom-guard.redis-timeout=5s");

    @Test
    void contributesBloomGuardHealthOfThisGenerationByDefault() {
        runner.withPropertyValues("bloom-guard.filters.user.expected-insertions=1000").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(CONTRIBUTOR);
            assertThat(context).hasSingleBean(HEALTH_INDICATOR);
            assertThat(context).hasSingleBean(FilterStatusCache.class);
            assertThat(context).getBean("bloomGuard").isSameAs(context.getBean(CONTRIBUTOR));
        });
    }

    @Test
    void isUpWithPerFilterDetailsWhenEveryFilterIsReady() {
        runner.withPropertyValues("bloom-guard.filters.ready.expected-insertions=1000",
                "bloom-guard.filters.crowded.expected-insertions=1000").run(context -> {
            context.getBean(BloomFilterRegistry.class).filter("ready").load(LongStream.rangeClosed(1, 500).boxed());
            context.getBean(BloomFilterRegistry.class).filter("crowded").load(LongStream.rangeClosed(1, 3000).boxed());
            context.getBean(FilterStatusCache.class).refreshAll();

            Reading health = Reading.of(context);

            // A filter over its capacity still guards (only more false positives): it shows, it does not demote.
            assertThat(health.status()).isEqualTo("UP");
            assertThat(health.filter("ready")).containsEntry("state", FilterState.READY)
                    .containsEntry("circuit", CircuitBreaker.State.CLOSED)
                    .containsEntry("overCapacity", false)
                    .containsKeys("fillRatio", "estimatedFpp");
            assertThat(health.filter("crowded")).containsEntry("state", FilterState.READY)
                    .containsEntry("overCapacity", true);
            assertThat((double) health.filter("ready").get("fillRatio")).isBetween(0.0, 1.0).isPositive();
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

                        Reading health = Reading.of(context);

                        assertThat(health.status()).isEqualTo("UNKNOWN");
                        assertThat(health.filter("lost")).containsEntry("state", FilterState.DEGRADED);
                        assertThat(health.filter("locked")).containsEntry("state", FilterState.WARMING);
                    }
                    finally {
                        renewals.shutdownNow();
                    }
                });
    }

    /**
     * Redis loses a ready filter (eviction, a FLUSHALL, a failover to an empty replica) between two
     * of the cache's reads: the first check that finds it gone tells the cache, and health stops
     * showing it ready within seconds, not at the next read an hour later. Its reload shows as
     * soon, without anyone asking the cache.
     */
    @Test
    void showsAFilterLostFromRedisWithinSecondsAndItsReloadAsSoon() {
        runner.withPropertyValues("bloom-guard.filters.evicted.expected-insertions=1000",
                "bloom-guard.status-refresh-interval=1h").run(context -> {
                    RedisBloomFilter filter = context.getBean(BloomFilterRegistry.class).filter("evicted");
                    filter.load(LongStream.rangeClosed(1, 500).boxed());
                    Await.until("the load to show", Duration.ofSeconds(10),
                            () -> "READY".equals(String.valueOf(Reading.of(context).filter("evicted").get("state"))));
                    List<Long> absent = LongStream.rangeClosed(1_001, 2_000).boxed().toList();
                    assertThat(absent.stream().filter(key -> filter.check(key) == Membership.ABSENT).count())
                            .as("absent keys the ready filter blocks").isGreaterThan(900);

                    StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
                    Set<String> keys = redis.keys("health-autoconfig:*evicted*");
                    assertThat(keys).isNotEmpty();
                    redis.delete(keys);
                    assertThat(filter.check(1_001L)).isEqualTo(Membership.NOT_READY);

                    Await.until("health to show the lost filter", Duration.ofSeconds(10),
                            () -> Reading.of(context).filter("evicted").get("state") == FilterState.DEGRADED);
                    assertThat(Reading.of(context).status()).isEqualTo("UNKNOWN");

                    filter.load(LongStream.rangeClosed(1, 500).boxed());
                    Await.until("health to show the reload", Duration.ofSeconds(10),
                            () -> Reading.of(context).filter("evicted").get("state") == FilterState.READY);
                    assertThat(Reading.of(context).status()).isEqualTo("UP");
                });
    }

    @Test
    void canBeSwitchedOff() {
        runner.withPropertyValues("bloom-guard.filters.user.expected-insertions=1000",
                "management.health.bloomguard.enabled=false").run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(CONTRIBUTOR);
                    assertThat(context).doesNotHaveBean(FilterStatusCache.class);
                });
    }

    @Test
    void contributesNothingWithoutActuator() {
        runner.withPropertyValues("bloom-guard.filters.user.expected-insertions=1000")
                .withClassLoader(new FilteredClassLoader(HEALTH_INDICATOR))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(CONTRIBUTOR);
                    assertThat(context).doesNotHaveBean("bloomGuard");
                });
    }

    @Test
    void backsOffFromAUserContributorOfTheSameName() {
        runner.withPropertyValues("bloom-guard.filters.user.expected-insertions=1000")
                .withUserConfiguration(OwnHealth.class)
                .run(context -> {
                    assertThat(context).doesNotHaveBean(CONTRIBUTOR);
                    assertThat(context).hasBean("bloomGuardHealthIndicator");
                });
    }

    /** A contributor's {@code Health}, read through {@code health()}, {@code getStatus().getCode()} and {@code getDetails()}. */
    private record Reading(String status, Map<String, Object> details) {

        static Reading of(ApplicationContext context) {
            Object health = call(context.getBean("bloomGuard"), "health");
            return new Reading((String) call(call(health, "getStatus"), "getCode"), cast(call(health, "getDetails")));
        }

        Map<String, Object> filter(String name) {
            return cast(details.get(name));
        }

        private static Object call(Object target, String method) {
            return ReflectionUtils.invokeMethod(ReflectionUtils.findMethod(target.getClass(), method), target);
        }

        @SuppressWarnings("unchecked")
        private static Map<String, Object> cast(Object map) {
            return (Map<String, Object>) map;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnHealth {

        /** Any bean of that name: the starter backs off by name, whatever its type. */
        @Bean
        Supplier<String> bloomGuardHealthIndicator() {
            return () -> "UP";
        }
    }
}
