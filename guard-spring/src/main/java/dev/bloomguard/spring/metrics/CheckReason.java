package dev.bloomguard.spring.metrics;

import java.util.Locale;

/**
 * The {@code reason} tag of {@code bloomguard.checks}: why a call was passed, blocked or
 * bypassed. Low cardinality by design: one value per cause an operator acts on differently.
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
    SUSPENDED;

    private final String tag = name().toLowerCase(Locale.ROOT).replace('_', '-');

    public String tag() {
        return tag;
    }
}
