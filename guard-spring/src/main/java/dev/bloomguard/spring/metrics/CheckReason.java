package dev.bloomguard.spring.metrics;

import java.util.Locale;

/**
 * The {@code reason} tag of {@code bloomguard.checks}: why a call was passed, blocked,
 * bypassed or shed (a shed call has the reasons of a bypassed one: why the filter could not answer). Low cardinality by design: one value per cause an operator acts on differently.
 */
public enum CheckReason {

    /** The filter itself answered: the key may exist (passed) or is definitely absent (blocked). */
    FILTER,

    /** The filter is not loaded (first warmup, a lost filter being re-warmed, a rollout not covered yet). */
    NOT_READY,

    /** Redis failed or did not answer in time. */
    REDIS_ERROR,

    /** The circuit to Redis is open: Redis was not asked. */
    CIRCUIT_OPEN,

    /**
     * Blocking is suspended on this instance: adds that Redis refused are being retried, or the
     * filter may come from another warmup query than this instance's, until it is reloaded.
     */
    SUSPENDED,

    /**
     * The key passed the filter, but a guarded call found nothing for it a moment ago and the
     * filter's {@code negative-cache} remembers that (blocked).
     */
    REMEMBERED;

    private final String tag = name().toLowerCase(Locale.ROOT).replace('_', '-');

    /** Whether a check with {@code outcome} can have this reason: the pairs that have a counter. */
    public boolean explains(CheckOutcome outcome) {
        return switch (this) {
            case FILTER -> outcome == CheckOutcome.PASSED || outcome == CheckOutcome.BLOCKED;
            case REMEMBERED -> outcome == CheckOutcome.BLOCKED;
            default -> outcome == CheckOutcome.BYPASSED || outcome == CheckOutcome.SHED;
        };
    }

    public String tag() {
        return tag;
    }
}
