package dev.bloomguard.spring.interceptor;

/**
 * What the check of one call decided: whether it goes on and, when the filter remembers
 * misses and the key passed the filter itself, the key to remember should the call find
 * nothing, with when its check began; when the audit samples a rejected call, its key. Made by {@link GuardChecks}, read by the handler of the
 * call's return kind and by {@link MissRecorder}.
 */
record Admission(boolean admitted, Object missKey, long checkStarted, Object auditKey) {

    static final Admission ADMITTED = new Admission(true, null, 0);
    static final Admission REJECTED = new Admission(false, null, 0);

    Admission(boolean admitted, Object missKey, long checkStarted) {
        this(admitted, missKey, checkStarted, null);
    }

    /** A rejection the audit looks up again ({@link FalseNegativeAudit}): with its key. */
    static Admission rejectedAndAudited(Object key) {
        return new Admission(false, null, 0, key);
    }
}
