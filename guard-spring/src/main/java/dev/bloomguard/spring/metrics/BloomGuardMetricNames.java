package dev.bloomguard.spring.metrics;

/** Every meter name and tag the starter publishes; each meter carries the {@code filter} tag. */
public final class BloomGuardMetricNames {

    /** Counter of guarded calls, tags {@code filter} and {@code outcome} (passed, blocked, bypassed). */
    public static final String CHECKS = "bloomguard.checks";

    /** Timer of the filter check of a guarded call (the Redis round trip), tag {@code filter}. */
    public static final String CHECK_DURATION = "bloomguard.check.duration";

    public static final String TAG_FILTER = "filter";

    public static final String TAG_OUTCOME = "outcome";

    private BloomGuardMetricNames() {
    }
}
