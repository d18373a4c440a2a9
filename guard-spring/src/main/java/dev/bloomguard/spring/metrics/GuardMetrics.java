package dev.bloomguard.spring.metrics;

/** Where the interceptor reports each check and add, and the warmer each load. */
public interface GuardMetrics {

    /** Reports nothing; used when there is no meter registry. */
    GuardMetrics NONE = (filter, outcome, durationNanos) -> {
    };

    /**
     * @param durationNanos time spent deciding, or a negative value when nothing was asked of
     *     the filter (a null key); such calls are not counted
     */
    void record(String filter, CheckOutcome outcome, long durationNanos);

    /**
     * As {@link #record(String, CheckOutcome, long)}, with why: {@link CheckReason#FILTER} for a
     * call passed or blocked by the filter, the cause for a bypassed one.
     */
    default void record(String filter, CheckOutcome outcome, CheckReason reason, long durationNanos) {
        record(filter, outcome, durationNanos);
    }

    /**
     * A call the filter could not answer went through beyond the filter's bypass budget
     * ({@code bypass.when-exhausted: allow}); it is also {@link #record recorded} as bypassed.
     */
    default void recordOverBudget(String filter) {
    }

    /**
     * One {@code @BloomPut} add of {@code keys} keys; {@code failed}: it failed and was handed to
     * the background retry. Called by the interceptor, not heard as {@code FilterEvent.AddFailed},
     * which a filter tells of every failed add (retries, catch-up, the application's own, each
     * chunk of a large batch apart) and would count other keys.
     */
    default void recordAdd(String filter, int keys, boolean failed) {
    }

    /**
     * One load of {@code filter} from its warmup source. Called by the warmer, not heard as
     * {@code FilterEvent.Loaded}, which is told only of swapped loads (the application's own
     * too) and times the load alone, where this times the warmer's whole attempt.
     *
     * @param keys keys the load read, or a negative value when unknown (a failed load)
     */
    default void recordLoad(String filter, LoadOutcome outcome, long keys, long durationNanos) {
    }

    /**
     * One lookup of a blocked call by the audit ({@code audit.sample-rate}); {@code result}
     * {@code found} is a false negative.
     */
    default void recordAudit(String filter, AuditResult result) {
    }
}
