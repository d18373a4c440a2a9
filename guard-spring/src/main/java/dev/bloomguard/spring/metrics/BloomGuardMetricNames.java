package dev.bloomguard.spring.metrics;

/**
 * Every meter name and tag the starter publishes; each meter carries the {@code filter} tag but
 * {@link #CIRCUIT_STATE} and {@link #CIRCUIT_TRANSITIONS}, whose breaker fronts the one Redis every
 * filter of the application uses.
 */
public final class BloomGuardMetricNames {

    /**
     * Counter of guarded calls, tags {@code filter}, {@code outcome} (passed, blocked, bypassed,
     * shed) and {@code reason} ({@code filter} for passed and blocked, {@code remembered} for a
     * blocked remembered miss; for bypassed and shed not-ready, redis-error, circuit-open or
     * suspended: see {@link CheckReason}).
     */
    public static final String CHECKS = "bloomguard.checks";

    /**
     * Timer of the filter check of a guarded call (the Redis round trip), tags {@code filter} and
     * {@code outcome} (passed, blocked, bypassed, shed, as {@link #CHECKS}): the one latency timer of a
     * check; the {@link #CHECK_OBSERVATION} observation makes no second one (see
     * {@code BloomGuardMetricsAutoConfiguration}).
     */
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
    /**
     * 1 while the local mirror hears other instances' adds (with {@code trust-absent}: while it may
     * block from memory), 0 otherwise, tag {@code filter}.
     */
    public static final String MIRROR_HEARING = "bloomguard.mirror.hearing";

    /**
     * Timer of each load of a filter from its warmup source (startup, re-warm, rebuild), from the
     * first key read to the swap, tags {@code filter} and {@code outcome}: swapped, refused (read
     * too few keys to trust: see {@code rebuild.max-shrink}) or failed.
     */
    public static final String LOAD_DURATION = "bloomguard.load.duration";

    /** Distribution summary of the keys each load read, tags {@code filter} and {@code outcome} (swapped or refused). */
    public static final String LOAD_KEYS = "bloomguard.load.keys";

    /**
     * Gauge of the seconds since the live bitmap was swapped in by any instance, tag {@code filter};
     * from the cached status, so it shows a load by another instance at the next refresh. {@code NaN}
     * before the first load.
     */
    public static final String FILTER_AGE = "bloomguard.filter.age";

    /**
     * Gauge of the filter's configured {@code rebuild.interval} in seconds, 0 when it is never
     * rebuilt on a schedule, tag {@code filter}: what an alert on {@link #FILTER_AGE} compares with.
     */
    public static final String REBUILD_INTERVAL = "bloomguard.filter.rebuild.interval";

    /**
     * Gauge, 1 when the live filter holds more keys than its {@code expected-insertions} or its
     * estimated fpp exceeds twice the configured one, otherwise 0, tag {@code filter}; from the cached status.
     */
    public static final String OVER_CAPACITY = "bloomguard.filter.over.capacity";

    /**
     * Gauge, the {@code expected-insertions} of the geometry that answers the filter's checks:
     * the configured one, or the one {@code rebuild.auto-resize} grew it to; tag {@code filter}.
     */
    public static final String EXPECTED_INSERTIONS = "bloomguard.filter.expected.insertions";

    /** Gauge, 1 when {@code rebuild.auto-resize} grew the filter beyond its configured geometry, otherwise 0, tag {@code filter}. */
    public static final String RESIZED = "bloomguard.filter.resized";

    /**
     * Counter of calls the filter could not answer that went through to the method beyond its
     * bypass budget, under {@code bypass.when-exhausted: allow}, tag {@code filter}; counted as
     * {@code outcome=bypassed} in {@link #CHECKS} too. Under {@code shed} (the default) such calls
     * are {@code outcome=shed} instead, and this stays at 0.
     */
    public static final String BYPASS_OVER_BUDGET = "bloomguard.bypass.over-budget";

    /** Counter of keys {@code @BloomPut} added to the filter on the call itself, tag {@code filter}. */
    public static final String ADDS = "bloomguard.adds";

    /**
     * Counter of keys whose {@code @BloomPut} add failed and was handed to the background retry,
     * tag {@code filter}; the instance does not block the filter until they land.
     */
    public static final String FAILED_ADDS = "bloomguard.adds.failed";

    /**
     * Counter of false negatives the audit found ({@code audit.sample-rate}): calls the filter
     * blocked whose method, asked again in the background, found what it looked up. Tag
     * {@code filter}; anything above 0 is a real key the guard refused.
     */
    public static final String FALSE_NEGATIVES = "bloomguard.false-negatives";

    /**
     * Counter of the audit's lookups of blocked calls, tags {@code filter} and {@code result}:
     * {@code found} (a false negative), {@code not-found}, {@code failed} (the method threw
     * something else) and {@code dropped} (the audit's queue was full).
     */
    public static final String AUDITS = "bloomguard.audits";

    /**
     * Gauge of the circuit breaker in front of Redis: 0 closed, 1 half-open, 2 open. No tags: one
     * breaker fronts the application's one Redis, whatever the filter.
     */
    public static final String CIRCUIT_STATE = "bloomguard.circuit.state";

    /**
     * Counter of the transitions of the circuit breaker in front of Redis, tags {@code from} and
     * {@code to}: {@code closed}, {@code open} or {@code half-open}. Each transition counted once,
     * however many filters share the breaker; no {@code filter} tag, as {@link #CIRCUIT_STATE}.
     */
    public static final String CIRCUIT_TRANSITIONS = "bloomguard.circuit.transitions";

    /**
     * Observation (a span, for a tracer) around each check of a guarded call, low-cardinality key
     * values {@code filter} and {@code outcome} (passed, blocked, bypassed, or failed when the
     * guard threw); only with an ObservationRegistry bean. Its meters (Boot's default meter
     * handler makes a timer {@code bloomguard.check} and {@code bloomguard.check.active} of it) are
     * denied by the starter's meter filter: {@link #CHECK_DURATION} is the latency timer.
     */
    public static final String CHECK_OBSERVATION = "bloomguard.check";

    /** Observation around each {@code @BloomPut} add, key values {@code filter} and {@code outcome} (added or failed). */
    public static final String PUT_OBSERVATION = "bloomguard.put";

    public static final String TAG_RESULT = "result";

    public static final String TAG_FILTER = "filter";

    public static final String TAG_OUTCOME = "outcome";

    public static final String TAG_REASON = "reason";

    public static final String TAG_FROM = "from";

    public static final String TAG_TO = "to";

    private BloomGuardMetricNames() {
    }
}
