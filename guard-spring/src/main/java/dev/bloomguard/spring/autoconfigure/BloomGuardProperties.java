package dev.bloomguard.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.util.unit.DataSize;

import dev.bloomguard.core.hash.KeyHash;
import dev.bloomguard.core.hash.KeyType;
import dev.bloomguard.spring.interceptor.BloomGuardAdvisor;

/**
 * Settings under {@code bloom-guard}. Checked at startup by {@link FilterSettingsValidator}: a
 * bad value fails the application before it serves a request, naming the property.
 *
 * <p>Size: a properties holder, one nested class per level with a described field per property;
 * it grows with the configuration, not with logic.
 */
@ConfigurationProperties(prefix = "bloom-guard")
public class BloomGuardProperties {

    /** The key prefix of an application without spring.application.name. */
    public static final String DEFAULT_KEY_PREFIX = "bg";

    /** Whether the starter is active; when false, @BloomGuard and @BloomPut are no-ops and nothing touches Redis. */
    private boolean enabled = true;

    /**
     * Namespace of every Redis key the starter writes. Default: "bg:" followed by
     * spring.application.name when the application has a name (so two applications on one Redis
     * never share a filter by accident), otherwise "bg".
     */
    private String keyPrefix;

    /**
     * A check that takes longer than this counts as a Redis failure (see on-redis-failure). Time
     * the instance itself was paused or too busy to read the reply does not count, up to 1s more.
     */
    private Duration redisTimeout = Duration.ofMillis(50);

    /** Bound on writes to Redis: adds, bitmap uploads and swaps. */
    private Duration writeTimeout = Duration.ofSeconds(10);

    /** What a guarded call does when Redis fails or is too slow: allow (let it through) or block (reject it). */
    private OnRedisFailure onRedisFailure = OnRedisFailure.ALLOW;

    /** Safety limit on the bitmap of one filter, all shards together; a filter whose geometry needs more fails startup. */
    private DataSize maxFilterSize = DataSize.ofMegabytes(512);

    /** Largest bitmap of one shard; a filter needing more is split into shards, each its own key and cluster slot. */
    private DataSize maxShardSize = DataSize.ofMegabytes(64);

    /** Order of the guard advice; by default it runs outside (before) caching and transactions. */
    private int order = BloomGuardAdvisor.DEFAULT_ORDER;

    /**
     * Most keys of a batch (a collection or array key) sent to Redis in one command per shard; a
     * larger batch is checked or added in chunks of this many, one after another, so that no
     * request makes Redis run one unbounded command.
     */
    private int maxBatchSize = 1_000;

    /**
     * How long a load lock, and the load's hold on the adds journal, outlive an instance that
     * crashed while loading; renewed while the load runs.
     */
    private Duration lockTtl = Duration.ofSeconds(30);

    /** Stops checks from waiting on a Redis that keeps failing. */
    private CircuitBreaker circuitBreaker = new CircuitBreaker();

    /** The adds journal, which carries each add into the loads that swap after it. */
    private Journal journal = new Journal();

    /** Instances of differing filter configurations running side by side, as during a rolling deploy. */
    private Rollout rollout = new Rollout();

    /**
     * How often each instance checks that Redis has not gone back in time (a restart from an
     * older RDB/AOF file, a failover to a replica that lagged), which would bring back each filter
     * without the adds made since. A filter found behind bypasses on every instance until it is
     * reloaded; keys added before the rewind can be blocked for at most this long.
     */
    private Duration rewindCheckInterval = Duration.ofSeconds(5);

    /**
     * How often each filter's status (fill ratio, estimated fpp, approximate count) is read from
     * Redis for the gauges, the health contributor and the actuator endpoint. Each read is a
     * BITCOUNT over the whole bitmap, so scrapes and health checks read the last result instead.
     */
    private Duration statusRefreshInterval = Duration.ofSeconds(30);

    /** The bloomguard actuator endpoint. */
    private Endpoint endpoint = new Endpoint();

    /** How rejected calls reach HTTP clients under Spring MVC and WebFlux. */
    private Web web = new Web();

    /**
     * A Redis connection of the starter's own (spring.data.redis.* names). Set any of these and the
     * starter connects with Lettuce there, whatever the application's RedisConnectionFactory is.
     */
    @NestedConfigurationProperty
    private final BloomGuardRedisProperties redis = new BloomGuardRedisProperties();

    /** The filters, by the name used in @BloomGuard(filter = ...). */
    private Map<String, Filter> filters = new LinkedHashMap<>();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /** The configured key prefix, or null when none is set (see {@link #effectiveKeyPrefix(String)}). */
    public String getKeyPrefix() {
        return keyPrefix;
    }

    /**
     * The namespace the filters use: the configured key prefix, else {@code bg:<application name>}
     * (characters that may not appear in a key name replaced by '-'), else {@code bg}.
     */
    public String effectiveKeyPrefix(String applicationName) {
        if (keyPrefix != null) {
            return keyPrefix;
        }
        if (applicationName == null || applicationName.isBlank()) {
            return DEFAULT_KEY_PREFIX;
        }
        return DEFAULT_KEY_PREFIX + ":" + applicationName.trim().replaceAll("[^A-Za-z0-9_.-]", "-");
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    public Duration getRedisTimeout() {
        return redisTimeout;
    }

    public void setRedisTimeout(Duration redisTimeout) {
        this.redisTimeout = redisTimeout;
    }

    public int getMaxBatchSize() {
        return maxBatchSize;
    }

    public void setMaxBatchSize(int maxBatchSize) {
        this.maxBatchSize = maxBatchSize;
    }

    public Duration getWriteTimeout() {
        return writeTimeout;
    }

    public void setWriteTimeout(Duration writeTimeout) {
        this.writeTimeout = writeTimeout;
    }

    public OnRedisFailure getOnRedisFailure() {
        return onRedisFailure;
    }

    public void setOnRedisFailure(OnRedisFailure onRedisFailure) {
        this.onRedisFailure = onRedisFailure;
    }

    public DataSize getMaxFilterSize() {
        return maxFilterSize;
    }

    public void setMaxFilterSize(DataSize maxFilterSize) {
        this.maxFilterSize = maxFilterSize;
    }

    public DataSize getMaxShardSize() {
        return maxShardSize;
    }

    public void setMaxShardSize(DataSize maxShardSize) {
        this.maxShardSize = maxShardSize;
    }

    public int getOrder() {
        return order;
    }

    public void setOrder(int order) {
        this.order = order;
    }

    public Duration getLockTtl() {
        return lockTtl;
    }

    public void setLockTtl(Duration lockTtl) {
        this.lockTtl = lockTtl;
    }

    public Journal getJournal() {
        return journal;
    }

    public void setJournal(Journal journal) {
        this.journal = journal;
    }

    public Rollout getRollout() {
        return rollout;
    }

    public void setRollout(Rollout rollout) {
        this.rollout = rollout;
    }

    public Duration getRewindCheckInterval() {
        return rewindCheckInterval;
    }

    public void setRewindCheckInterval(Duration rewindCheckInterval) {
        this.rewindCheckInterval = rewindCheckInterval;
    }

    public CircuitBreaker getCircuitBreaker() {
        return circuitBreaker;
    }

    public void setCircuitBreaker(CircuitBreaker circuitBreaker) {
        this.circuitBreaker = circuitBreaker;
    }

    public Duration getStatusRefreshInterval() {
        return statusRefreshInterval;
    }

    public void setStatusRefreshInterval(Duration statusRefreshInterval) {
        this.statusRefreshInterval = statusRefreshInterval;
    }

    public Endpoint getEndpoint() {
        return endpoint;
    }

    public void setEndpoint(Endpoint endpoint) {
        this.endpoint = endpoint;
    }

    public BloomGuardRedisProperties getRedis() {
        return redis;
    }

    public Web getWeb() {
        return web;
    }

    public void setWeb(Web web) {
        this.web = web;
    }

    public Map<String, Filter> getFilters() {
        return filters;
    }

    public void setFilters(Map<String, Filter> filters) {
        this.filters = filters;
    }

    /** The bloomguard actuator endpoint. */
    public static class Endpoint {

        /**
         * After the endpoint starts a rebuild of a filter (POST), how long it answers further
         * rebuilds of that filter with HTTP 429, counted from the rebuild's start and again from its
         * end (it holds while the rebuild runs), on every instance of the fleet (a turn in Redis).
         * 0: no cooldown.
         */
        private Duration rebuildCooldown = Duration.ofMinutes(1);

        public Duration getRebuildCooldown() {
            return rebuildCooldown;
        }

        public void setRebuildCooldown(Duration rebuildCooldown) {
            this.rebuildCooldown = rebuildCooldown;
        }
    }

    /** How rejected calls reach HTTP clients. */
    public static class Web {

        /**
         * Whether a BloomGuardRejectedException becomes HTTP 404 (a ProblemDetail when
         * spring.mvc/webflux.problemdetails.enabled, otherwise Spring Boot's standard error body);
         * false: the application handles it.
         */
        private boolean enabled = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** What a guarded call does when Redis cannot answer. */
    public enum OnRedisFailure {
        /** Let the call through (fail open): a Redis outage never blocks real keys. */
        ALLOW,
        /** Reject the call as if the key were absent (fail closed). */
        BLOCK
    }

    /** What a guarded call does when its key is definitely absent. */
    public enum OnAbsent {
        /** Throw BloomGuardRejectedException (HTTP 404 under Spring MVC). */
        THROW,
        /** Return null, Optional.empty() or an empty collection, map, stream or array, by return type. */
        RETURN_EMPTY
    }

    /** What a guarded call does when its filter cannot answer and the filter's bypass budget is spent. */
    public enum WhenExhausted {
        /** Do not invoke the method: throw BloomGuardShedException (HTTP 503 with Retry-After). */
        SHED,
        /** Invoke the method anyway (fail open, unbounded), counting the call in bloomguard.bypass.over-budget. */
        ALLOW
    }

    /**
     * A rolling deploy that changes a filter's expected-insertions, fpp, shards, max-shard-size or
     * key-type runs instances of both configurations at once, each with the filter under other
     * Redis keys (a generation). Each instance heartbeats which generations it writes to; every
     * add reaches every generation in use, and an instance checks against its own generation only
     * once every instance has written to it for the journal retention (before that, against a
     * generation that holds every key, or not at all).
     */
    public static class Rollout {

        /** How often each instance tells the others which generations of each filter it uses. */
        private Duration heartbeatInterval = Duration.ofSeconds(5);

        /**
         * How long a generation no instance heartbeats is still written to; after it (and one
         * heartbeat more) its keys are deleted. At least four heartbeat intervals.
         */
        private Duration gracePeriod = Duration.ofMinutes(2);

        public Duration getHeartbeatInterval() {
            return heartbeatInterval;
        }

        public void setHeartbeatInterval(Duration heartbeatInterval) {
            this.heartbeatInterval = heartbeatInterval;
        }

        public Duration getGracePeriod() {
            return gracePeriod;
        }

        public void setGracePeriod(Duration gracePeriod) {
            this.gracePeriod = gracePeriod;
        }
    }

    /** Settings of the adds journal. */
    public static class Journal {

        /**
         * How long the journal keeps each add for the loads to come: at least as long as the
         * longest transaction that writes a guarded key, so that a load whose snapshot could not
         * see the uncommitted row still replays its add, however many loads swap before it
         * commits. Each add stays between one and two retentions.
         */
        private Duration retention = Duration.ofMinutes(10);

        /**
         * Most adds one shard's journal holds within the retention. Beyond it the oldest leave,
         * and for the next retention every load merges the live filter into the new one instead
         * of replacing it, so that no key is lost (the load then drops no deleted keys either).
         */
        private long capacity = 1_000_000;

        public Duration getRetention() {
            return retention;
        }

        public void setRetention(Duration retention) {
            this.retention = retention;
        }

        public long getCapacity() {
            return capacity;
        }

        public void setCapacity(long capacity) {
            this.capacity = capacity;
        }
    }

    /** The circuit breaker in front of Redis, shared by every filter. */
    public static class CircuitBreaker {

        /** Failures in a row after which calls stop going to Redis. */
        private int failureThreshold = 5;

        /** How long calls fail at once before one probe goes to Redis again. */
        private Duration openDuration = Duration.ofSeconds(1);

        /** How many of the latest Redis calls failure-rate and slow-call-rate are taken over. */
        private int window = 100;

        /** Calls needed in the window before a rate can open the circuit; at most window. */
        private int minimumCalls = 20;

        /** Share of failed calls (timeouts, lost connections) in the window that opens the circuit, in (0, 1]. */
        private double failureRate = 0.25;

        /** A call answered later than this counts as slow. */
        private Duration slowCall = Duration.ofSeconds(1);

        /** Share of slow calls in the window that opens the circuit, in (0, 1]. */
        private double slowCallRate = 0.5;

        public int getFailureThreshold() {
            return failureThreshold;
        }

        public void setFailureThreshold(int failureThreshold) {
            this.failureThreshold = failureThreshold;
        }

        public Duration getOpenDuration() {
            return openDuration;
        }

        public void setOpenDuration(Duration openDuration) {
            this.openDuration = openDuration;
        }

        public int getWindow() {
            return window;
        }

        public void setWindow(int window) {
            this.window = window;
        }

        public int getMinimumCalls() {
            return minimumCalls;
        }

        public void setMinimumCalls(int minimumCalls) {
            this.minimumCalls = minimumCalls;
        }

        public double getFailureRate() {
            return failureRate;
        }

        public void setFailureRate(double failureRate) {
            this.failureRate = failureRate;
        }

        public Duration getSlowCall() {
            return slowCall;
        }

        public void setSlowCall(Duration slowCall) {
            this.slowCall = slowCall;
        }

        public double getSlowCallRate() {
            return slowCallRate;
        }

        public void setSlowCallRate(double slowCallRate) {
            this.slowCallRate = slowCallRate;
        }

        /** These settings for the breaker; throws {@link IllegalArgumentException} naming what cannot work. */
        public dev.bloomguard.core.redis.CircuitBreaker.Settings toSettings() {
            return new dev.bloomguard.core.redis.CircuitBreaker.Settings(failureThreshold, openDuration, window,
                    minimumCalls, failureRate, slowCall, slowCallRate);
        }
    }

    /** One filter. */
    public static class Filter {

        /** How many keys the filter is sized for; more keys raise the false-positive rate. */
        private long expectedInsertions = 1_000_000;

        /** Wanted false-positive probability at expected-insertions keys, in (0, 1). */
        private double fpp = 0.01;

        /** What a guarded call does when its key is definitely absent: throw or return-empty. */
        private OnAbsent onAbsent = OnAbsent.THROW;

        /**
         * Whether concurrent calls of one guarded method with equal arguments that passed the
         * filter share one call on this instance (blocking methods only; never inside a
         * transaction, nor after a @BloomPut to the filter that the shared call may have missed).
         */
        private boolean singleFlight = false;

        /** Number of shards; 0 derives it from bloom-guard.max-shard-size. Changing it builds the filter under new keys. */
        private int shards = 0;

        /**
         * How the database compares keys: integer, uuid, text, text-case-insensitive, char
         * (CHAR(n): trailing blanks do not count) or bytes. Lookups are canonicalised by it, so
         * "0042" finds 42. Empty: read from the type of the warmup query's key column at startup;
         * without warmup SQL, keys hash by their Java type.
         */
        private KeyType keyType;

        /**
         * How keys are spread over the filter's bits: murmur3 (public and bit-compatible with
         * Guava's BloomFilter; the default) or siphash (SipHash-2-4 keyed by a 128-bit secret, so
         * that which absent keys pass cannot be computed offline, only found by probing). Part of
         * the filter's Redis key names: changing it builds the filter under new keys.
         */
        private KeyHash.Algorithm hash = KeyHash.Algorithm.MURMUR3;

        /**
         * Secret of a siphash filter: 32 hexadecimal digits (128 bits). Empty: the first instance
         * generates one and keeps it in Redis at <key-prefix>:v1:{<filter>}:hash-secret, without expiry.
         * A configured one is never written to Redis, only its fingerprint in the key names (during
         * a rolling change to or from it, instances of the other configuration bypass rather than
         * write to its generation). Never logged.
         */
        private String hashSecret = "";

        /** How the filter is filled from the database. */
        private Warmup warmup = new Warmup();

        /**
         * Bean name of the KeySource that fills the filter instead of warmup.sql (a Spring Data
         * repository's stream, MongoDB, another service), as @BloomKeySource on that bean does;
         * empty: warmup.sql, or a bean annotated @BloomKeySource with this filter's name.
         */
        private String sourceBean = "";

        /** Periodic rebuilds from the warmup SQL or source bean, which drop deleted keys. */
        private Rebuild rebuild = new Rebuild();

        /** A local copy of the bitmap that answers "present" without a Redis round trip. */
        private LocalMirror localMirror = new LocalMirror();

        /**
         * Keys that passed the filter but that the guarded method did not find, remembered as
         * absent for a while: a found false positive then costs the database one query per ttl.
         */
        private NegativeCache negativeCache = new NegativeCache();

        /**
         * Sampled blocked calls looked up again in the background: a row found is a false
         * negative, counted, added back at once and followed by a rebuild.
         */
        private Audit audit = new Audit();

        /**
         * How many calls per second go through to the method, on this instance, while the filter
         * cannot answer (Redis failing, the circuit open, not loaded, answering suspended).
         */
        private Bypass bypass = new Bypass();

        public Bypass getBypass() {
            return bypass;
        }

        public void setBypass(Bypass bypass) {
            this.bypass = bypass;
        }

        public Audit getAudit() {
            return audit;
        }

        public void setAudit(Audit audit) {
            this.audit = audit;
        }

        public NegativeCache getNegativeCache() {
            return negativeCache;
        }

        public void setNegativeCache(NegativeCache negativeCache) {
            this.negativeCache = negativeCache;
        }

        public long getExpectedInsertions() {
            return expectedInsertions;
        }

        public KeyType getKeyType() {
            return keyType;
        }

        public void setKeyType(KeyType keyType) {
            this.keyType = keyType;
        }

        public KeyHash.Algorithm getHash() {
            return hash;
        }

        public void setHash(KeyHash.Algorithm hash) {
            this.hash = hash;
        }

        public String getHashSecret() {
            return hashSecret;
        }

        public void setHashSecret(String hashSecret) {
            this.hashSecret = hashSecret;
        }

        public void setExpectedInsertions(long expectedInsertions) {
            this.expectedInsertions = expectedInsertions;
        }

        public double getFpp() {
            return fpp;
        }

        public void setFpp(double fpp) {
            this.fpp = fpp;
        }

        public int getShards() {
            return shards;
        }

        public void setShards(int shards) {
            this.shards = shards;
        }

        public OnAbsent getOnAbsent() {
            return onAbsent;
        }

        public void setOnAbsent(OnAbsent onAbsent) {
            this.onAbsent = onAbsent;
        }

        public boolean isSingleFlight() {
            return singleFlight;
        }

        public void setSingleFlight(boolean singleFlight) {
            this.singleFlight = singleFlight;
        }

        public Warmup getWarmup() {
            return warmup;
        }

        public String getSourceBean() {
            return sourceBean;
        }

        public void setSourceBean(String sourceBean) {
            this.sourceBean = sourceBean;
        }

        public void setWarmup(Warmup warmup) {
            this.warmup = warmup;
        }

        public Rebuild getRebuild() {
            return rebuild;
        }

        public LocalMirror getLocalMirror() {
            return localMirror;
        }

        public void setLocalMirror(LocalMirror localMirror) {
            this.localMirror = localMirror;
        }

        public void setRebuild(Rebuild rebuild) {
            this.rebuild = rebuild;
        }
    }

    /** The local mirror of one filter's bitmap. */
    /**
     * The bypass budget of one filter: while the filter cannot answer, each call that would go
     * through to the method takes its place in a token bucket of {@code max-rate} calls per second
     * per instance (a burst of one second's worth); beyond it the call is shed
     * ({@code BloomGuardShedException}, HTTP 503 with Retry-After) or, with
     * {@code when-exhausted: allow}, still let through and counted. Unset, the rate is learned:
     * twice the busiest second of calls the filter answered "may be present" over the last five
     * minutes of answers, at least 100 per second, and nothing is shed before the filter has
     * answered once on this instance (a deploy's first warmup stays quiet).
     */
    public static class Bypass {

        /**
         * Calls per second per instance that go through to the method while the filter cannot
         * answer, > 0. Unset (the default): learned, max(2 x the busiest second of passed calls
         * over the last five minutes of answers, 100), so the database sees at most about twice
         * what it saw while the filter answered; nothing is shed before the filter first answered.
         */
        private Double maxRate;

        /**
         * What a call beyond the budget does: shed (the default; BloomGuardShedException, HTTP 503
         * with Retry-After) or allow (it goes through, counted in bloomguard.bypass.over-budget).
         */
        private WhenExhausted whenExhausted = WhenExhausted.SHED;

        public Double getMaxRate() {
            return maxRate;
        }

        public void setMaxRate(Double maxRate) {
            this.maxRate = maxRate;
        }

        public WhenExhausted getWhenExhausted() {
            return whenExhausted;
        }

        public void setWhenExhausted(WhenExhausted whenExhausted) {
            this.whenExhausted = whenExhausted;
        }
    }

    /**
     * The audit of one filter's blocks, in production: a sample of the calls the filter blocked is
     * looked up again, after the caller has its answer, on one background thread with a bounded
     * queue (a full queue drops the lookup and counts it). When the method finds what it looked
     * up, the filter refused a key that exists: {@code bloomguard.false-negatives} counts it, a
     * WARN without the key says so, the key is added at once and a rebuild of the filter is asked
     * for, once per {@code rebuild-cooldown}. Audit only methods that are lookups: the method
     * runs once more for each sampled block.
     */
    public static class Audit {

        /**
         * Share of blocked calls looked up again, in [0, 1]; 0 (the default) turns the audit off.
         * 0.001 costs the database one query per thousand blocked calls.
         */
        private double sampleRate = 0;

        /**
         * After the audit asks for a rebuild of the filter, how long before it asks again; must be
         * positive, so that the false negatives of one incident ask for one rebuild, not a chain of them.
         */
        private Duration rebuildCooldown = Duration.ofMinutes(10);

        public double getSampleRate() {
            return sampleRate;
        }

        public void setSampleRate(double sampleRate) {
            this.sampleRate = sampleRate;
        }

        public Duration getRebuildCooldown() {
            return rebuildCooldown;
        }

        public void setRebuildCooldown(Duration rebuildCooldown) {
            this.rebuildCooldown = rebuildCooldown;
        }
    }

    /**
     * Remembered misses of one filter (see the README's threat model). A remembered key is
     * rejected like a blocked one, counted as outcome=blocked, reason=remembered; an add of the
     * key on any instance forgets it before the add returns, and a load or rebuild forgets all.
     */
    public static class NegativeCache {

        /**
         * Whether to remember misses. Off by default: on, a row written outside the guard (no
         * @BloomPut, no BloomFilter#add) whose key had been looked up and not found may be
         * rejected until the ttl ends or the catch-up query adds it, whichever comes first.
         */
        private boolean enabled = false;

        /** How long a miss is remembered: the most a key created outside the guard can stay rejected for it. */
        private Duration ttl = Duration.ofMinutes(1);

        /** Most keys this instance's memory points at (each rejection is confirmed in Redis). */
        private long maxEntries = 100_000;

        /** Whether a miss one instance remembered spares every instance's database query (pub/sub). */
        private boolean shared = true;

        /**
         * Exceptions that mean "not found" when the guarded method throws them, e.g.
         * org.springframework.dao.EmptyResultDataAccessException (subclasses count too); a
         * null result, an empty Optional or an empty Mono always do (an empty collection, map or Flux never).
         */
        private List<String> exceptions = new ArrayList<>();

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getTtl() {
            return ttl;
        }

        public void setTtl(Duration ttl) {
            this.ttl = ttl;
        }

        public long getMaxEntries() {
            return maxEntries;
        }

        public void setMaxEntries(long maxEntries) {
            this.maxEntries = maxEntries;
        }

        public boolean isShared() {
            return shared;
        }

        public void setShared(boolean shared) {
            this.shared = shared;
        }

        public List<String> getExceptions() {
            return exceptions;
        }

        public void setExceptions(List<String> exceptions) {
            this.exceptions = exceptions;
        }
    }

    public static class LocalMirror {

        /** Whether to keep a local mirror; checks of present keys then cost no Redis round trip. */
        private boolean enabled = false;

        /** Most memory the mirror's pages may take; a larger filter is mirrored page by page. */
        private DataSize maxMemory = DataSize.ofMegabytes(64);

        /** A page is re-read from Redis this long after it was loaded. */
        private Duration refreshAfter = Duration.ofSeconds(30);

        /** Answer "absent" from the mirror without asking Redis: faster, but a key added on another instance a moment ago may be blocked until its bits arrive. */
        private boolean trustAbsent = false;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public DataSize getMaxMemory() {
            return maxMemory;
        }

        public void setMaxMemory(DataSize maxMemory) {
            this.maxMemory = maxMemory;
        }

        public Duration getRefreshAfter() {
            return refreshAfter;
        }

        public void setRefreshAfter(Duration refreshAfter) {
            this.refreshAfter = refreshAfter;
        }

        public boolean isTrustAbsent() {
            return trustAbsent;
        }

        public void setTrustAbsent(boolean trustAbsent) {
            this.trustAbsent = trustAbsent;
        }
    }

    /** Rebuilding a filter from its warmup SQL or source bean. */
    public static class Rebuild {

        /** Rebuild when the live filter is older than this, e.g. 6h; 0: never. Keys added meanwhile are kept. */
        private Duration interval = Duration.ZERO;

        /**
         * Largest fraction, in [0, 1], by which a load may read fewer keys than the live filter
         * holds (its last load plus the adds since). A bigger drop (an empty replica, a wrong
         * schema) is refused and logged at ERROR, the old filter stays live and the load is tried
         * again at the next rebuild; force it with FilterWarmer.rebuild(filter, true). 1 accepts any load.
         */
        private double maxShrink = 0.5;

        /**
         * Whether a load that finds the filter over capacity (more keys than expected-insertions,
         * or an estimated fpp above twice the configured one) rebuilds it under a larger geometry:
         * expected-insertions doubled until the loaded keys fill at most half of it, within
         * bloom-guard.max-filter-size. The decision is kept in Redis and every instance adopts it,
         * also after a restart; it needs a key source (warmup.sql or a source bean) to rebuild from.
         */
        private boolean autoResize = false;

        public boolean isAutoResize() {
            return autoResize;
        }

        public void setAutoResize(boolean autoResize) {
            this.autoResize = autoResize;
        }

        public Duration getInterval() {
            return interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        public double getMaxShrink() {
            return maxShrink;
        }

        public void setMaxShrink(double maxShrink) {
            this.maxShrink = maxShrink;
        }
    }

    /** Filling a filter from SQL. */
    public static class Warmup {

        /** Query that returns the keys, e.g. SELECT id FROM users (one column, or name it in key-column); empty: no warmup. */
        private String sql = "";

        /** Bean name of the DataSource to read; empty: the primary DataSource. */
        private String datasource = "";

        /** The key's column when the query returns more than one; empty: the query must return exactly one column. */
        private String keyColumn = "";

        /** Rows fetched per round trip; the query is streamed with a cursor, so memory stays constant. */
        private int fetchSize = 10_000;

        /** Whether to warm the filter when the application starts. */
        private boolean onStartup = true;

        /** Whether startup waits until the filter is warm; if false, checks are bypassed until it is. */
        private boolean blocking = false;

        /**
         * Query for keys of rows written since :since (the database's time when the previous load
         * or catch-up started, less catch-up-overlap), run every catch-up-interval, e.g.
         * SELECT id FROM users WHERE created_at > :since. For rows that other services, batch jobs
         * or plain SQL insert, which never pass through @BloomPut; empty: none.
         */
        private String catchUpSql = "";

        /** How often catch-up-sql runs. */
        private Duration catchUpInterval = Duration.ofMinutes(1);

        /**
         * How far before the previous run's start catch-up-sql looks again: longer than the longest
         * transaction that writes these rows, whose timestamp is taken before it commits.
         */
        private Duration catchUpOverlap = Duration.ofMinutes(1);

        public String getCatchUpSql() {
            return catchUpSql;
        }

        public void setCatchUpSql(String catchUpSql) {
            this.catchUpSql = catchUpSql;
        }

        public Duration getCatchUpInterval() {
            return catchUpInterval;
        }

        public void setCatchUpInterval(Duration catchUpInterval) {
            this.catchUpInterval = catchUpInterval;
        }

        public Duration getCatchUpOverlap() {
            return catchUpOverlap;
        }

        public void setCatchUpOverlap(Duration catchUpOverlap) {
            this.catchUpOverlap = catchUpOverlap;
        }

        public String getSql() {
            return sql;
        }

        public void setSql(String sql) {
            this.sql = sql;
        }

        public String getDatasource() {
            return datasource;
        }

        public void setDatasource(String datasource) {
            this.datasource = datasource;
        }

        public String getKeyColumn() {
            return keyColumn;
        }

        public void setKeyColumn(String keyColumn) {
            this.keyColumn = keyColumn;
        }

        public int getFetchSize() {
            return fetchSize;
        }

        public void setFetchSize(int fetchSize) {
            this.fetchSize = fetchSize;
        }

        public boolean isOnStartup() {
            return onStartup;
        }

        public void setOnStartup(boolean onStartup) {
            this.onStartup = onStartup;
        }

        public boolean isBlocking() {
            return blocking;
        }

        public void setBlocking(boolean blocking) {
            this.blocking = blocking;
        }
    }
}
