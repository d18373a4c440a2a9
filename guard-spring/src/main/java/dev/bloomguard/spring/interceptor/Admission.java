package dev.bloomguard.spring.interceptor;

import dev.bloomguard.spring.metrics.CheckReason;

/**
 * What the check of one call decided: whether it goes on and, when the filter remembers
 * misses and the key passed the filter itself, the key to remember should the call find
 * nothing, with when its check began; when the audit samples a rejected call, its key; when the
 * call is not rejected but shed (the filter could not answer and its bypass budget is spent), why
 * the filter could not answer. Made by {@link GuardChecks}, read by the handler of the call's
 * return kind and by {@link MissRecorder}.
 *
 * @param shedReason null unless shed: a shed call is no rejection, and never becomes an empty result
 */
record Admission(boolean admitted, Object missKey, long checkStarted, Object auditKey, CheckReason shedReason) {

    static final Admission ADMITTED = new Admission(true, null, 0);
    static final Admission REJECTED = new Admission(false, null, 0);

    /** One per reason, made once: shedding happens under a flood and allocates nothing. */
    private static final Admission[] SHED = new Admission[CheckReason.values().length];

    static {
        for (CheckReason reason : CheckReason.values()) {
            SHED[reason.ordinal()] = new Admission(false, null, 0, null, reason);
        }
    }

    Admission(boolean admitted, Object missKey, long checkStarted) {
        this(admitted, missKey, checkStarted, null, null);
    }

    /** A rejection the audit looks up again ({@link FalseNegativeAudit}): with its key. */
    static Admission rejectedAndAudited(Object key) {
        return new Admission(false, null, 0, key, null);
    }

    /** A call shed because the filter could not answer, for {@code reason}, and its bypass budget is spent. */
    static Admission shed(CheckReason reason) {
        return SHED[reason.ordinal()];
    }

    /** Whether the call is shed rather than rejected. */
    boolean isShed() {
        return shedReason != null;
    }
}
