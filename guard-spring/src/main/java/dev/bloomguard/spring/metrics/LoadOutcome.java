package dev.bloomguard.spring.metrics;

import java.util.Locale;

/** The {@code outcome} tag of {@code bloomguard.load.duration} and {@code bloomguard.load.keys}. */
public enum LoadOutcome {

    /** The load went live. */
    SWAPPED,

    /** The load read far fewer keys than the live filter holds and was not swapped in. */
    REFUSED,

    /** The load failed (the source, Redis or the lock); the live filter, if any, stays. */
    FAILED;

    private final String tag = name().toLowerCase(Locale.ROOT);

    public String tag() {
        return tag;
    }
}
