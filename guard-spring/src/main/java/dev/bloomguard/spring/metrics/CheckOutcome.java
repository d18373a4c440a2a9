package dev.bloomguard.spring.metrics;

import java.util.Locale;

/** The {@code outcome} tag of {@code bloomguard.checks}. */
public enum CheckOutcome {

    /** The filter said the key may exist; the call went through. */
    PASSED,

    /** The filter said the key is definitely absent; the method was not invoked. */
    BLOCKED,

    /** The filter could not decide (not ready, Redis failing); the call went through or was rejected by policy. */
    BYPASSED,

    /**
     * The filter could not decide and its bypass budget was spent: the method was not invoked
     * ({@code BloomGuardShedException}, HTTP 503). Not counted as bypassed too.
     */
    SHED;

    private final String tag = name().toLowerCase(Locale.ROOT);

    public String tag() {
        return tag;
    }
}
