package dev.bloomguard.spring.metrics;

/** Every meter name and tag the starter publishes; each meter carries the {@code filter} tag. */
public final class BloomGuardMetricNames {

    /**
     * Counter of guarded calls, tags {@code filter}, {@code outcome} (passed, blocked, bypassed)
     * and {@code reason} ({@code filter} for passed and blocked; for bypassed not-ready,
     * redis-error, circuit-open or suspended: see {@link CheckReason}).
     */
    public static final String CHECKS = "bloomguard.checks";

    /** Timer of the filter check of a guarded call (the Redis round trip), tag {@code filter}. */
    public static final String CHECK_DURATION = "bloomguard.check.duration";

    /** Gauge of the share of the filter's bits that are set, tag {@code filter}; read periodically, never per scrape. */
    public static final String FILL_RATIO = "bloomguard.filter.fill.ratio";

    /** Gauge of the false-positive rate the filter has now, fill ratio ^ k, tag {@code filter}. */
    public static final String ESTIMATED_FPP = "bloomguard.filter.estimated.fpp";

    /** Gauge of the distinct keys the filter holds, estimated from its fill, tag {@code filter}. */
    public static final String APPROXIMATE_COUNT = "bloomguard.filter.approximate.count";

    /** Counter of local mirror lookups, tags {@code filter} and {@code result} (hit, miss, confirmed). */
    public static final String MIRROR_LOOKUPS = "bloomguard.mirror.lookups";

    /** Gauge of the bytes a filter's local mirror holds in memory, tag {@code filter}. */
    public static final String MIRROR_MEMORY = "bloomguard.mirror.memory";

    public static final String TAG_RESULT = "result";

    public static final String TAG_FILTER = "filter";

    public static final String TAG_OUTCOME = "outcome";

    public static final String TAG_REASON = "reason";

    private BloomGuardMetricNames() {
    }
}
