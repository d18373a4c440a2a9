package dev.bloomguard.spring.metrics;

import java.util.function.ToDoubleFunction;

import dev.bloomguard.core.FilterStatus;
import dev.bloomguard.spring.actuate.FilterStatusCache;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The per-filter gauges {@code bloomguard.filter.fill.ratio}, {@code bloomguard.filter.estimated.fpp},
 * {@code bloomguard.filter.approximate.count}, {@code bloomguard.filter.over.capacity},
 * {@code bloomguard.filter.expected.insertions}, {@code bloomguard.filter.resized} and
 * {@code bloomguard.filter.age}, registered once per filter.
 *
 * <p>They read the {@link FilterStatusCache}, never Redis: a scrape costs nothing however large
 * the filter, and the values are as old as the last refresh (the age counts on from the cached
 * load time). A filter not read yet, or whose bitmap Redis could not count, reads as
 * {@code NaN}, Micrometer's "no value".
 */
public final class FilterStatusGauges {

    public FilterStatusGauges(MeterRegistry registry, FilterStatusCache statuses) {
        for (String filter : statuses.registry().names()) {
            register(registry, statuses, filter, BloomGuardMetricNames.FILL_RATIO,
                    "Share of the filter's bits that are set", FilterStatus::fillRatio);
            register(registry, statuses, filter, BloomGuardMetricNames.ESTIMATED_FPP,
                    "False-positive rate the filter has now: fill ratio to the power of its hash count",
                    FilterStatus::estimatedFpp);
            register(registry, statuses, filter, BloomGuardMetricNames.APPROXIMATE_COUNT,
                    "Distinct keys in the filter, estimated from its fill", FilterStatusGauges::approximateCount);
            register(registry, statuses, filter, BloomGuardMetricNames.OVER_CAPACITY,
                    "1 when the filter holds more keys than expected-insertions or its estimated fpp exceeds twice"
                            + " the configured one",
                    status -> status.overCapacity() ? 1 : 0);
            register(registry, statuses, filter, BloomGuardMetricNames.EXPECTED_INSERTIONS,
                    "Expected insertions of the geometry that answers the filter's checks: the configured one, or"
                            + " the one auto-resize grew it to",
                    status -> status.geometry().expectedInsertions());
            register(registry, statuses, filter, BloomGuardMetricNames.RESIZED,
                    "1 when auto-resize grew the filter beyond its configured expected-insertions",
                    status -> status.resizedFrom().isPresent() ? 1 : 0);
            Gauge.builder(BloomGuardMetricNames.FILTER_AGE, statuses, cache -> cache.snapshot(filter)
                    .flatMap(snapshot -> snapshot.status().liveSince())
                    .map(since -> (System.currentTimeMillis() - since.toEpochMilli()) / 1000.0)
                    .orElse(Double.NaN))
                    .description("Seconds since the live bitmap was loaded, by any instance")
                    .baseUnit("seconds")
                    .tag(BloomGuardMetricNames.TAG_FILTER, filter)
                    .strongReference(true)
                    .register(registry);
        }
    }

    private static void register(MeterRegistry registry, FilterStatusCache statuses, String filter, String name,
            String description, ToDoubleFunction<FilterStatus> value) {
        Gauge.builder(name, statuses, cache -> cache.snapshot(filter)
                .map(FilterStatusCache.Snapshot::status)
                .filter(status -> status.bitCount() >= 0)
                .map(value::applyAsDouble)
                .orElse(Double.NaN))
                .description(description)
                .tag(BloomGuardMetricNames.TAG_FILTER, filter)
                .strongReference(true)
                .register(registry);
    }

    /** A saturated filter (every bit set) could hold any number of keys. */
    private static double approximateCount(FilterStatus status) {
        return status.approximateCount() == Long.MAX_VALUE ? Double.POSITIVE_INFINITY : status.approximateCount();
    }
}
