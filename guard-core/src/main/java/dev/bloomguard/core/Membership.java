package dev.bloomguard.core;

/**
 * What a filter can say about one key. Only {@link #ABSENT} may ever lead to a blocked call, and
 * only the core's verdict ({@code dev.bloomguard.core.check.Verdict}) answers it: everything else
 * asks {@link #isAbsent()}.
 */
public enum Membership {

    /** All k bits are set: the key may exist (or is a false positive). */
    PRESENT,

    /** At least one of the k bits is clear in a complete filter: the key was never added. */
    ABSENT,

    /** The filter is missing or was never completely loaded, so it cannot tell. */
    NOT_READY,

    /** Redis did not answer within the check timeout or answered with an error. */
    UNAVAILABLE;

    /** True when the key is definitely absent: the one answer that blocks. */
    public boolean isAbsent() {
        return this == ABSENT;
    }

    /** True when the filter could decide, i.e. the answer is {@link #PRESENT} or {@link #ABSENT}. */
    public boolean isDecided() {
        return this == PRESENT || this == ABSENT;
    }
}
