package dev.bloomguard.spring.metrics;

import java.time.Duration;
import java.util.Map;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The gauge {@code bloomguard.filter.rebuild.interval}: each filter's configured
 * {@code rebuild.interval}, in seconds, 0 when it is never rebuilt. It is what an alert on
 * {@code bloomguard.filter.age} compares with, so that a filter never meant to be rebuilt (the
 * default) does not look stale.
 */
public final class RebuildIntervalGauges {

    /** @param intervals each filter's {@code rebuild.interval} */
    public RebuildIntervalGauges(MeterRegistry registry, Map<String, Duration> intervals) {
        intervals.forEach((filter, interval) -> Gauge
                .builder(BloomGuardMetricNames.REBUILD_INTERVAL, () -> interval.toMillis() / 1000.0)
                .description("The filter's configured rebuild.interval; 0: never rebuilt on a schedule")
                .baseUnit("seconds")
                .tag(BloomGuardMetricNames.TAG_FILTER, filter)
                .strongReference(true)
                .register(registry));
    }
}
