package dev.bloomguard.spring.metrics;

import java.util.Locale;

/** The {@code outcome} tag of {@code bloomguard.checks}. */
public enum CheckOutcome {

    /** The filter said the key may exist; the call went through. */
    PASSED,

    /** The filter said the key is definitely absent; the method was not invoked. */
    BLOCKED,

    /** The filter could not decide (not ready, Redis failing); the call went through or was rejected by policy. */
    BYPASSED;

    private final String tag = name().toLowerCase(Locale.ROOT);

    public String tag() {
        return tag;
    }
}
