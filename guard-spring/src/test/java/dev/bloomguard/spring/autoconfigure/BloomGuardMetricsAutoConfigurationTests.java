package dev.bloomguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import dev.bloomguard.spring.BootNames;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.bloomguard.core.FilterStatus;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.RealServers;
import dev.bloomguard.spring.actuate.FilterStatusCache;
import dev.bloomguard.spring.metrics.BloomGuardMetricNames;
import dev.bloomguard.spring.metrics.FilterStatusGauges;
import dev.bloomguard.testsupport.Await;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.config.MeterFilterReply;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/** The per-filter gauges: registered with a MeterRegistry, read from the status cache, never from Redis per scrape. */
class BloomGuardMetricsAutoConfigurationTests {

    private static final int KEYS = 3_000;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BootNames.redisAutoConfiguration(), BloomGuardAutoConfiguration.class,
                    BloomGuardMetricsAutoConfiguration.class))
            .withPropertyValues(RealServers.redisProperties())
            .withPropertyValues("bloom-guard.key-prefix=gauges-autoconfig", "bloom-guard.redis-timeout=5s",
                    "bloom-guard.filters.user.expected-insertions=10000");

    @Test
    void registersTheGaugesOfEveryFilterWhenThereIsAMeterRegistry() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            assertThat(context).hasSingleBean(FilterStatusGauges.class);
            assertThat(context).hasSingleBean(FilterStatusCache.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            for (String name : new String[] { BloomGuardMetricNames.FILL_RATIO, BloomGuardMetricNames.ESTIMATED_FPP,
                    BloomGuardMetricNames.APPROXIMATE_COUNT }) {
                assertThat(meters.find(name).tag("filter", "user").gauge()).as(name).isNotNull();
            }
        });
    }

    /** What the age alert compares with: 0 for a filter never rebuilt on a schedule, the default. */
    @Test
    void publishesEachFiltersRebuildIntervalInSeconds() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("bloom-guard.filters.rebuilt.expected-insertions=1000",
                        "bloom-guard.filters.rebuilt.rebuild.interval=6h")
                .run(context -> {
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    assertThat(meters.get(BloomGuardMetricNames.REBUILD_INTERVAL).tag("filter", "user").gauge().value())
                            .isZero();
                    assertThat(meters.get(BloomGuardMetricNames.REBUILD_INTERVAL).tag("filter", "rebuilt").gauge().value())
                            .isEqualTo(6 * 3600.0);
                });
    }

    /** One latency timer: the check observation's own timer is denied, {@code bloomguard.check.duration} is not. */
    @Test
    void deniesTheTimersTheCheckObservationWouldMakeAndNothingElse() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            MeterFilter filter = context.getBean("bloomGuardObservationMeterFilter", MeterFilter.class);
            assertThat(filter.accept(id("bloomguard.check", Meter.Type.TIMER))).isEqualTo(MeterFilterReply.DENY);
            assertThat(filter.accept(id("bloomguard.check.active", Meter.Type.LONG_TASK_TIMER)))
                    .isEqualTo(MeterFilterReply.DENY);
            for (String kept : new String[] { "bloomguard.check.duration", "bloomguard.checks", "bloomguard.put" }) {
                assertThat(filter.accept(id(kept, Meter.Type.TIMER))).as(kept).isEqualTo(MeterFilterReply.NEUTRAL);
            }
        });
    }

    private static Meter.Id id(String name, Meter.Type type) {
        return new Meter.Id(name, Tags.of("filter", "user"), null, null, type);
    }

    @Test
    void overCapacityGaugeAndFilterAgeFollowTheLastRefresh() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("bloom-guard.status-refresh-interval=1h",
                        "bloom-guard.filters.crowded.expected-insertions=1000")
                .run(context -> {
                    BloomFilterRegistry filters = context.getBean(BloomFilterRegistry.class);
                    FilterStatusCache statuses = context.getBean(FilterStatusCache.class);
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    assertThat(meters.get("bloomguard.circuit.state").gauge().value()).as("closed").isZero();
                    assertThat(meters.get("bloomguard.circuit.state").gauge().getId().getTags()).isEmpty();
                    statuses.refreshAll();
                    assertThat(meters.get("bloomguard.filter.age").tag("filter", "crowded").gauge().value())
                            .as("never loaded").isNaN();

                    filters.filter("user").load(LongStream.rangeClosed(1, KEYS).boxed());
                    filters.filter("crowded").load(LongStream.rangeClosed(1, KEYS).boxed());
                    Thread.sleep(1_100);
                    statuses.refreshAll();

                    assertThat(meters.get("bloomguard.filter.over.capacity").tag("filter", "user").gauge().value())
                            .isZero();
                    assertThat(meters.get("bloomguard.filter.over.capacity").tag("filter", "crowded").gauge().value())
                            .isEqualTo(1.0);
                    assertThat(meters.get("bloomguard.filter.age").tag("filter", "crowded").gauge().value())
                            .as("seconds since the load").isBetween(1.0, 30.0);
                });
    }

    @Test
    void registersNoGaugesWithoutAMeterRegistry() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(FilterStatusGauges.class);
            assertThat(context).doesNotHaveBean(FilterStatusCache.class);
        });
    }

    @Test
    void gaugesShowTheLastRefreshNotTheLiveBitmap() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("bloom-guard.status-refresh-interval=1h", "bloom-guard.filters.cached.expected-insertions=10000")
                .run(context -> {
                    RedisBloomFilter filter = context.getBean(BloomFilterRegistry.class).filter("cached");
                    FilterStatusCache statuses = context.getBean(FilterStatusCache.class);
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    filter.load(LongStream.rangeClosed(1, KEYS).boxed());
                    // A load by this instance is noticed within a second, without waiting for the interval.
                    Await.until("load noticed in time", Duration.ofSeconds(10),
                            () -> statuses.snapshot("cached").orElseThrow().status().lastLoad().equals(filter.lastLoad()));
                    FilterStatus loaded = statuses.snapshot("cached").orElseThrow().status();

                    assertThat(gauge(meters, BloomGuardMetricNames.FILL_RATIO)).isEqualTo(loaded.fillRatio()).isPositive();
                    assertThat(gauge(meters, BloomGuardMetricNames.ESTIMATED_FPP)).isEqualTo(loaded.estimatedFpp());
                    assertThat(gauge(meters, BloomGuardMetricNames.APPROXIMATE_COUNT)).isCloseTo(KEYS, within(KEYS * 0.03));

                    // Adds set bits in Redis; a scrape does not see them until the next refresh.
                    filter.addAll(LongStream.rangeClosed(KEYS + 1, 2 * KEYS).boxed().toList());
                    for (int scrape = 0; scrape < 10; scrape++) {
                        assertThat(gauge(meters, BloomGuardMetricNames.APPROXIMATE_COUNT))
                                .isEqualTo((double) loaded.approximateCount());
                    }
                    statuses.refresh("cached");
                    assertThat(gauge(meters, BloomGuardMetricNames.APPROXIMATE_COUNT))
                            .isCloseTo(2 * KEYS, within(2 * KEYS * 0.03));
                });
    }

    @Test
    void gaugesFollowTheBitmapEveryRefreshInterval() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("bloom-guard.status-refresh-interval=200ms", "bloom-guard.filters.polled.expected-insertions=10000")
                .run(context -> {
                    RedisBloomFilter filter = context.getBean(BloomFilterRegistry.class).filter("polled");
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    filter.load(LongStream.rangeClosed(1, KEYS).boxed());
                    filter.addAll(LongStream.rangeClosed(KEYS + 1, 2 * KEYS).boxed().toList());

                    double count = Await.until("the gauge counting the adds", Duration.ofSeconds(10),
                            () -> meters.get(BloomGuardMetricNames.APPROXIMATE_COUNT).tag("filter", "polled").gauge().value(),
                            counted -> Math.abs(counted - 2 * KEYS) <= 2 * KEYS * 0.03);
                    assertThat(count).isCloseTo(2 * KEYS, within(2 * KEYS * 0.03));
                });
    }

    private static double gauge(MeterRegistry meters, String name) {
        return meters.get(name).tag("filter", "cached").gauge().value();
    }
}
