package dev.bloomguard.spring.metrics;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * {@link GuardMetrics} on Micrometer. Meters are registered once per filter up front (so every
 * outcome and reason shows as zero before the first call) and looked up from a map afterwards,
 * never built on the hot path. Passed and blocked calls carry {@code reason=filter}; bypassed
 * and shed ones their cause. {@code bloomguard.check.duration} is the one latency timer of a check, by
 * {@code outcome} as the counter. The same holds for adds ({@code bloomguard.adds}, {@code bloomguard.adds.failed})
 * and loads ({@code bloomguard.load.duration} and {@code bloomguard.load.keys} by outcome).
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
        record(filter, outcome, unexplained(outcome), durationNanos);
    }

    @Override
    public void record(String filter, CheckOutcome outcome, CheckReason reason, long durationNanos) {
        FilterMeters filterMeters = meters.get(filter);
        if (filterMeters == null) {
            filterMeters = meters.computeIfAbsent(filter, name -> new FilterMeters(registry, name));
        }
        // Only the combinations registered: passed is the filter's, blocked the filter's or a
        // remembered miss's, bypassed and shed have a cause.
        CheckReason counted = reason.explains(outcome) ? reason : unexplained(outcome);
        filterMeters.checks.get(outcome).get(counted).increment();
        if (durationNanos >= 0) {
            filterMeters.durations.get(outcome).record(durationNanos, TimeUnit.NANOSECONDS);
        }
    }

    /** The reason counted for {@code outcome} when none that explains it is given. */
    private static CheckReason unexplained(CheckOutcome outcome) {
        return outcome == CheckOutcome.BYPASSED || outcome == CheckOutcome.SHED ? CheckReason.NOT_READY
                : CheckReason.FILTER;
    }

    @Override
    public void recordOverBudget(String filter) {
        meters(filter).overBudget.increment();
    }

    @Override
    public void recordAdd(String filter, int keys, boolean failed) {
        FilterMeters filterMeters = meters(filter);
        (failed ? filterMeters.failedAdds : filterMeters.adds).increment(keys);
    }

    @Override
    public void recordLoad(String filter, LoadOutcome outcome, long keys, long durationNanos) {
        FilterMeters filterMeters = meters(filter);
        filterMeters.loads.get(outcome).record(durationNanos, TimeUnit.NANOSECONDS);
        DistributionSummary loadKeys = filterMeters.loadKeys.get(outcome);
        if (keys >= 0 && loadKeys != null) {
            loadKeys.record(keys);
        }
    }

    @Override
    public void recordAudit(String filter, AuditResult result) {
        FilterMeters filterMeters = meters(filter);
        if (result == AuditResult.FOUND) {
            filterMeters.falseNegatives.increment();
        }
        filterMeters.audits.get(result).increment();
    }

    private FilterMeters meters(String filter) {
        FilterMeters filterMeters = meters.get(filter);
        return filterMeters != null ? filterMeters
                : meters.computeIfAbsent(filter, name -> new FilterMeters(registry, name));
    }

    private static final class FilterMeters {

        private final Map<CheckOutcome, Map<CheckReason, Counter>> checks = new EnumMap<>(CheckOutcome.class);
        private final Map<CheckOutcome, Timer> durations = new EnumMap<>(CheckOutcome.class);
        private final Counter overBudget;
        private final Counter adds;
        private final Counter failedAdds;
        /** Registered with the filter's first meter, at 0, so that an alert on its increase has a series. */
        private final Counter falseNegatives;
        private final Map<AuditResult, Counter> audits = new EnumMap<>(AuditResult.class);
        private final Map<LoadOutcome, Timer> loads = new EnumMap<>(LoadOutcome.class);
        /** Swapped and refused loads: a failed one may not have read its keys. */
        private final Map<LoadOutcome, DistributionSummary> loadKeys = new EnumMap<>(LoadOutcome.class);

        FilterMeters(MeterRegistry registry, String filter) {
            for (CheckOutcome outcome : CheckOutcome.values()) {
                Map<CheckReason, Counter> byReason = new EnumMap<>(CheckReason.class);
                for (CheckReason reason : CheckReason.values()) {
                    if (reason.explains(outcome)) {
                        byReason.put(reason, Counter.builder(BloomGuardMetricNames.CHECKS)
                                .description("Calls guarded by a Bloom filter, by outcome and reason")
                                .tag(BloomGuardMetricNames.TAG_FILTER, filter)
                                .tag(BloomGuardMetricNames.TAG_OUTCOME, outcome.tag())
                                .tag(BloomGuardMetricNames.TAG_REASON, reason.tag())
                                .register(registry));
                    }
                }
                checks.put(outcome, byReason);
                durations.put(outcome, Timer.builder(BloomGuardMetricNames.CHECK_DURATION)
                        .description("Time to decide a guarded call (the Redis round trip), by outcome")
                        .tag(BloomGuardMetricNames.TAG_FILTER, filter)
                        .tag(BloomGuardMetricNames.TAG_OUTCOME, outcome.tag())
                        .register(registry));
            }
            overBudget = Counter.builder(BloomGuardMetricNames.BYPASS_OVER_BUDGET)
                    .description("Calls the filter could not answer that went through beyond its bypass budget"
                            + " (bypass.when-exhausted: allow)")
                    .tag(BloomGuardMetricNames.TAG_FILTER, filter)
                    .register(registry);
            adds = Counter.builder(BloomGuardMetricNames.ADDS)
                    .description("Keys @BloomPut added to the filter")
                    .tag(BloomGuardMetricNames.TAG_FILTER, filter)
                    .register(registry);
            failedAdds = Counter.builder(BloomGuardMetricNames.FAILED_ADDS)
                    .description("Keys whose @BloomPut add failed and is retried in the background")
                    .tag(BloomGuardMetricNames.TAG_FILTER, filter)
                    .register(registry);
            falseNegatives = Counter.builder(BloomGuardMetricNames.FALSE_NEGATIVES)
                    .description("Blocked calls whose method the audit found a row for: real keys the filter refused")
                    .tag(BloomGuardMetricNames.TAG_FILTER, filter)
                    .register(registry);
            for (AuditResult result : AuditResult.values()) {
                audits.put(result, Counter.builder(BloomGuardMetricNames.AUDITS)
                        .description("Blocked calls the audit looked up again, by what the method found")
                        .tag(BloomGuardMetricNames.TAG_FILTER, filter)
                        .tag(BloomGuardMetricNames.TAG_RESULT, result.tag())
                        .register(registry));
            }
            for (LoadOutcome outcome : LoadOutcome.values()) {
                loads.put(outcome, Timer.builder(BloomGuardMetricNames.LOAD_DURATION)
                        .description("Loads of the filter from its warmup source, by outcome")
                        .tag(BloomGuardMetricNames.TAG_FILTER, filter)
                        .tag(BloomGuardMetricNames.TAG_OUTCOME, outcome.tag())
                        .register(registry));
                if (outcome != LoadOutcome.FAILED) {
                    loadKeys.put(outcome, DistributionSummary.builder(BloomGuardMetricNames.LOAD_KEYS)
                            .description("Keys each load of the filter read, by outcome")
                            .baseUnit("keys")
                            .tag(BloomGuardMetricNames.TAG_FILTER, filter)
                            .tag(BloomGuardMetricNames.TAG_OUTCOME, outcome.tag())
                            .register(registry));
                }
            }
        }
    }
}
