package dev.bloomguard.test.spring;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import dev.bloomguard.spring.metrics.AuditResult;
import dev.bloomguard.spring.metrics.CheckOutcome;
import dev.bloomguard.spring.metrics.CheckReason;
import dev.bloomguard.spring.metrics.GuardMetrics;
import dev.bloomguard.spring.metrics.LoadOutcome;

/**
 * Every check's outcome, counted per filter for {@link BloomGuardTester}, in front of the
 * application's own {@link GuardMetrics} (Micrometer's, when the context has a meter registry),
 * which hears everything it heard before. A check the interceptor does not count (a null key) is
 * not counted here either.
 */
final class CheckCounts implements GuardMetrics {

    private final GuardMetrics delegate;
    private final Map<String, Map<CheckOutcome, LongAdder>> counts = new ConcurrentHashMap<>();

    CheckCounts(GuardMetrics delegate) {
        this.delegate = delegate;
    }

    @Override
    public void record(String filter, CheckOutcome outcome, long durationNanos) {
        count(filter, outcome, durationNanos);
        delegate.record(filter, outcome, durationNanos);
    }

    @Override
    public void record(String filter, CheckOutcome outcome, CheckReason reason, long durationNanos) {
        count(filter, outcome, durationNanos);
        delegate.record(filter, outcome, reason, durationNanos);
    }

    @Override
    public void recordAdd(String filter, int keys, boolean failed) {
        delegate.recordAdd(filter, keys, failed);
    }

    @Override
    public void recordLoad(String filter, LoadOutcome outcome, long keys, long durationNanos) {
        delegate.recordLoad(filter, outcome, keys, durationNanos);
    }

    @Override
    public void recordAudit(String filter, AuditResult result) {
        delegate.recordAudit(filter, result);
    }

    long count(String filter, CheckOutcome outcome) {
        Map<CheckOutcome, LongAdder> byOutcome = counts.get(filter);
        return byOutcome == null ? 0 : byOutcome.get(outcome).sum();
    }

    /** Of every filter. */
    long total(CheckOutcome outcome) {
        return counts.values().stream().mapToLong(byOutcome -> byOutcome.get(outcome).sum()).sum();
    }

    void reset() {
        counts.values().forEach(byOutcome -> byOutcome.values().forEach(LongAdder::reset));
    }

    private void count(String filter, CheckOutcome outcome, long durationNanos) {
        if (durationNanos >= 0) {
            counts.computeIfAbsent(filter, name -> newCounters()).get(outcome).increment();
        }
    }

    private static Map<CheckOutcome, LongAdder> newCounters() {
        Map<CheckOutcome, LongAdder> counters = new EnumMap<>(CheckOutcome.class);
        for (CheckOutcome outcome : CheckOutcome.values()) {
            counters.put(outcome, new LongAdder());
        }
        return counters;
    }
}
