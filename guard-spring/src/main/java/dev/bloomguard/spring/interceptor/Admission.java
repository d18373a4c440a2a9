package dev.bloomguard.spring.interceptor;

/**
 * What the check of one call decided: whether it goes on and, when the filter remembers
 * misses and the key passed the filter itself, the key to remember should the call find
 * nothing, with when its check began. Made by {@link GuardChecks}, read by the handler of the
 * call's return kind and by {@link MissRecorder}.
 */
record Admission(boolean admitted, Object missKey, long checkStarted) {

    static final Admission ADMITTED = new Admission(true, null, 0);
    static final Admission REJECTED = new Admission(false, null, 0);
}
