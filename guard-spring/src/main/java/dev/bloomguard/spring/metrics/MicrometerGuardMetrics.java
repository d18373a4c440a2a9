package dev.bloomguard.spring.metrics;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * {@link GuardMetrics} on Micrometer. Meters are registered once per filter up front (so every
 * outcome shows as zero before the first call) and looked up from a map afterwards, never built
 * on the hot path.
 */
public final class MicrometerGuardMetrics implements GuardMetrics {

    private final MeterRegistry registry;
    private final Map<String, FilterMeters> meters = new ConcurrentHashMap<>();

    public MicrometerGuardMetrics(MeterRegistry registry, Iterable<String> filters) {
        this.registry = registry;
        for (String filter : filters) {
            meters.put(filter, new FilterMeters(registry, filter));
        }
    }

    @Override
    public void record(String filter, CheckOutcome outcome, long durationNanos) {
        FilterMeters filterMeters = meters.get(filter);
        if (filterMeters == null) {
            filterMeters = meters.computeIfAbsent(filter, name -> new FilterMeters(registry, name));
        }
        filterMeters.checks.get(outcome).increment();
        if (durationNanos >= 0) {
            filterMeters.duration.record(durationNanos, TimeUnit.NANOSECONDS);
        }
    }

    private static final class FilterMeters {

        private final Map<CheckOutcome, Counter> checks = new EnumMap<>(CheckOutcome.class);
        private final Timer duration;

        FilterMeters(MeterRegistry registry, String filter) {
            for (CheckOutcome outcome : CheckOutcome.values()) {
                checks.put(outcome, Counter.builder(BloomGuardMetricNames.CHECKS)
                        .description("Calls guarded by a Bloom filter, by outcome")
                        .tag(BloomGuardMetricNames.TAG_FILTER, filter)
                        .tag(BloomGuardMetricNames.TAG_OUTCOME, outcome.tag())
                        .register(registry));
            }
            duration = Timer.builder(BloomGuardMetricNames.CHECK_DURATION)
                    .description("Time to decide a guarded call (the Redis round trip)")
                    .tag(BloomGuardMetricNames.TAG_FILTER, filter)
                    .register(registry);
        }
    }
}
