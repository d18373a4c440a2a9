package dev.bloomguard.spring.metrics;

import java.util.function.ToLongFunction;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.mirror.MirrorStats;
import dev.bloomguard.spring.BloomFilterRegistry;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * {@code bloomguard.mirror.lookups{filter, result = hit | miss | confirmed}},
 * {@code bloomguard.mirror.memory{filter}} and {@code bloomguard.mirror.hearing{filter}} for every
 * filter with a local mirror. They read the
 * mirror's own counters, so a scrape costs no Redis command.
 */
public final class MirrorMetrics {

    public MirrorMetrics(MeterRegistry registry, BloomFilterRegistry filters) {
        for (RedisBloomFilter filter : filters.asMap().values()) {
            if (filter.mirrorStats().isEmpty()) {
                continue;
            }
            lookups(registry, filter, "hit", "Checks answered present from the local mirror", MirrorStats::hits);
            lookups(registry, filter, "miss", "Checks that found a mirror page missing and asked Redis",
                    MirrorStats::misses);
            lookups(registry, filter, "confirmed", "Checks that found a clear bit in the mirror and asked Redis before blocking",
                    MirrorStats::confirmed);
            Gauge.builder(BloomGuardMetricNames.MIRROR_MEMORY, filter,
                    value -> value.mirrorStats().map(MirrorStats::memoryBytes).orElse(0L))
                    .description("Bytes of the filter's bitmap held by the local mirror")
                    .baseUnit("bytes")
                    .tag(BloomGuardMetricNames.TAG_FILTER, filter.name())
                    .strongReference(true)
                    .register(registry);
            // A trusting mirror that hears nothing (pub/sub blocked, its pings lost) quietly asks Redis for every absent key.
            Gauge.builder(BloomGuardMetricNames.MIRROR_HEARING, filter,
                    value -> value.mirrorStats().map(stats -> stats.hearing() ? 1.0 : 0.0).orElse(0.0))
                    .description("1 while the local mirror hears other instances' adds (with trust-absent: while it may"
                            + " block from memory), else 0")
                    .tag(BloomGuardMetricNames.TAG_FILTER, filter.name())
                    .strongReference(true)
                    .register(registry);
        }
    }

    private static void lookups(MeterRegistry registry, RedisBloomFilter filter, String result, String description,
            ToLongFunction<MirrorStats> count) {
        FunctionCounter.builder(BloomGuardMetricNames.MIRROR_LOOKUPS, filter,
                value -> value.mirrorStats().map(count::applyAsLong).orElse(0L))
                .description(description)
                .tag(BloomGuardMetricNames.TAG_FILTER, filter.name())
                .tag(BloomGuardMetricNames.TAG_RESULT, result)
                .register(registry);
    }
}
