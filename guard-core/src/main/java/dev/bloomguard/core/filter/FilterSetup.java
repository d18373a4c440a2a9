package dev.bloomguard.core.filter;

import static dev.bloomguard.core.internal.Arguments.checkArgument;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.HashSecrets;
import dev.bloomguard.core.LoadRefusedException;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.hash.KeyHash;
import dev.bloomguard.core.hash.KeyType;
import dev.bloomguard.core.mirror.MirrorSettings;
import dev.bloomguard.core.misses.RememberedMisses;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.rollout.FilterGenerations;
import dev.bloomguard.core.rollout.FilterResize;
import dev.bloomguard.core.write.AddCounts;

/**
 * The settings of one {@link RedisBloomFilter}, each described once here: what
 * {@link RedisBloomFilter.Builder} sets and checks. Every setting has a default but the name,
 * geometry and store. A class of its own so that the façade stays a façade; sealed, since the
 * builder is its only kind, and every setter returns that builder.
 */
public abstract sealed class FilterSetup permits RedisBloomFilter.Builder {

    /** Default background executor: daemon threads shared by all filters (mirror pages, subscriptions, re-warms). */
    private static final ExecutorService BACKGROUND = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "bloomguard-mirror");
        thread.setDaemon(true);
        return thread;
    });

    final String name;
    final FilterGeometry geometry;
    final BitmapStore store;
    String keyPrefix = "bg";
    Duration checkTimeout = Duration.ofMillis(50);
    String instanceId = defaultInstanceId();
    long journalCapacity = 1_000_000;
    Duration journalRetention = Duration.ofMinutes(10);
    Duration loadHold = Duration.ofMinutes(1);
    Duration rolloutHeartbeat;
    Duration rolloutGrace;
    double maxShrink = 0.5;
    int maxBatchSize = 1_000;
    Consumer<RedisBloomFilter> notReadyListener;
    final List<FilterListener> listeners = new ArrayList<>();
    MirrorSettings mirror;
    RememberedMisses.Settings misses;
    KeyType keyType;
    KeyHash hash = KeyHash.murmur3();
    FilterResize.Policy resizePolicy;
    FilterGeometry resizedFrom;
    Consumer<GrownGeneration> resizedLoadListener;
    Executor background = BACKGROUND;

    FilterSetup(String name, FilterGeometry geometry, BitmapStore store) {
        checkArgument(name != null && !name.isBlank(), "filter name must not be blank");
        checkArgument(geometry != null, "geometry of filter '%s' must not be null", name);
        checkArgument(store != null, "store of filter '%s' must not be null", name);
        this.name = name;
        this.geometry = geometry;
        this.store = store;
    }

    /** Namespace of the filter's Redis keys; default {@code bg}. */
    public RedisBloomFilter.Builder keyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
        return self();
    }

    /** A check slower than this answers {@link Membership#UNAVAILABLE}; default 50 ms. */
    public RedisBloomFilter.Builder checkTimeout(Duration checkTimeout) {
        checkArgument(checkTimeout != null && checkTimeout.toNanos() > 0, "check timeout (%s) must be positive",
                checkTimeout);
        this.checkTimeout = checkTimeout;
        return self();
    }

    /** Names this process in load locks; default {@code pid@host:random}. */
    public RedisBloomFilter.Builder instanceId(String instanceId) {
        checkArgument(instanceId != null && !instanceId.isBlank(), "instance id must not be blank");
        checkArgument(!instanceId.equals(AddCounts.REWINDS_FIELD), "instance id must not be %s",
                AddCounts.REWINDS_FIELD);
        this.instanceId = instanceId;
        return self();
    }

    /**
     * How many adds the journal of a shard holds at most (default 1,000,000, about 40 MB in
     * Redis for k = 7) within its {@link #journalRetention}. Beyond it the oldest leave the
     * journal, and for the next retention every swap merges the live bitmap into the new one,
     * so that no add is lost; a load whose own mark left fails and loads again.
     */
    public RedisBloomFilter.Builder journalCapacity(long journalCapacity) {
        checkArgument(journalCapacity >= 1, "journal capacity (%s) must be at least 1", journalCapacity);
        this.journalCapacity = journalCapacity;
        return self();
    }

    /**
     * How long the journal keeps an add for the loads to come (default 10 minutes): at least
     * as long as the longest transaction that adds a key, so that a load whose snapshot could
     * not see the uncommitted row still replays its add, however many loads swap before it
     * commits. Each add stays between one and two retentions.
     */
    public RedisBloomFilter.Builder journalRetention(Duration journalRetention) {
        checkArgument(journalRetention != null && !journalRetention.isNegative(),
                "journal retention (%s) must not be negative", journalRetention);
        this.journalRetention = journalRetention;
        return self();
    }

    /**
     * How long a load's hold on the journals outlives a loader that died mid-load (default 1
     * minute; renewed every third of it while the load runs). While it holds, the journals are
     * neither rotated nor trimmed to their capacity, so that the load finds its mark at its swap.
     */
    public RedisBloomFilter.Builder loadHold(Duration loadHold) {
        checkArgument(loadHold != null && loadHold.toMillis() >= 3, "load hold (%s) must be at least 3 ms", loadHold);
        this.loadHold = loadHold;
        return self();
    }

    /**
     * Most keys of a batch sent in one command per shard (default 1,000): a larger batch is
     * checked or added in chunks of this many, one after another, so that no caller makes
     * Redis run one unbounded command while its other clients wait.
     */
    public RedisBloomFilter.Builder maxBatchSize(int maxBatchSize) {
        checkArgument(maxBatchSize >= 1, "max batch size (%s) must be at least 1", maxBatchSize);
        this.maxBatchSize = maxBatchSize;
        return self();
    }

    /**
     * Largest fraction (default 0.5) by which a load may read fewer keys than the live filter
     * holds and still be swapped in; a bigger drop is refused with a {@link LoadRefusedException}
     * unless the load is forced. 1 accepts any load, 0 refuses any drop.
     */
    public RedisBloomFilter.Builder maxShrink(double maxShrink) {
        checkArgument(maxShrink >= 0 && maxShrink <= 1, "max shrink (%s) must be in [0, 1]", maxShrink);
        this.maxShrink = maxShrink;
        return self();
    }

    /**
     * Called (on the checking thread, so it must return at once) whenever a check finds the
     * filter missing or incomplete: the hook for scheduling a re-warm. The {@link FilterEvent.NotReady}
     * events of a {@link #listener} say the same, with the cause.
     */
    public RedisBloomFilter.Builder onNotReady(Consumer<RedisBloomFilter> listener) {
        this.notReadyListener = listener;
        return self();
    }

    /**
     * Adds a listener of this filter's {@link FilterEvent}s (not ready and why, loaded, add
     * failed); see {@link FilterListener} for the threads it is called on.
     */
    public RedisBloomFilter.Builder listener(FilterListener listener) {
        checkArgument(listener != null, "listener of filter '%s' must not be null", name);
        listeners.add(listener);
        return self();
    }

    /** Keeps a local, memory-bounded mirror of the bitmap that answers "present" without Redis. */
    public RedisBloomFilter.Builder mirror(MirrorSettings settings) {
        this.mirror = settings;
        return self();
    }

    /**
     * Remembers keys that passed the filter but that the guarded method did not find, and
     * forgets them on every add of the key; see {@link RememberedMisses}. Null: off (default).
     */
    public RedisBloomFilter.Builder rememberMisses(RememberedMisses.Settings settings) {
        this.misses = settings;
        return self();
    }

    /**
     * Compares keys as the database compares them (see {@link KeyType}); default none: keys
     * hash by their Java type. Part of the stored identity: a key type whose canonical form
     * of an ordinary value differs from the Java-type one (case-insensitive text, {@code CHAR(n)}
     * text) gets Redis keys of its own, so bits written one way are never read the other.
     */
    public RedisBloomFilter.Builder keyType(KeyType keyType) {
        this.keyType = keyType;
        return self();
    }

    /**
     * How keys are spread over the bits (default murmur3, bit-compatible with Guava). Part of
     * the stored identity: siphash filters have key names of their own, one set per secret.
     * For a secret kept in Redis, pass {@link HashSecrets#stored}; for a configured one,
     * {@link HashSecrets#configured}.
     */
    public RedisBloomFilter.Builder hash(KeyHash hash) {
        checkArgument(hash != null, "hash of filter '%s' must not be null", name);
        this.hash = hash;
        return self();
    }

    /**
     * Keeps the filter right while instances of differing configurations run side by side
     * (a rolling deploy that changes its geometry, key type or hash): every add reaches every
     * generation in use, and checks are answered by a generation that holds every key. The
     * caller must call {@link FilterGenerations#heartbeat()} before the instance serves and
     * every {@code heartbeat}; a generation nobody used for {@code grace} is deleted.
     */
    public RedisBloomFilter.Builder rollout(Duration heartbeat, Duration grace) {
        checkArgument(heartbeat != null && heartbeat.toMillis() > 0, "rollout heartbeat (%s) must be positive",
                heartbeat);
        checkArgument(grace != null && grace.compareTo(heartbeat.multipliedBy(4)) >= 0,
                "rollout grace period (%s) must be at least four heartbeats (%s)", grace, heartbeat);
        this.rolloutHeartbeat = heartbeat;
        this.rolloutGrace = grace;
        return self();
    }

    /**
     * Auto-resize: a load that finds the filter over capacity records in Redis the larger
     * geometry {@code policy} grows it into, and the {@link #rollout rollout} machinery moves
     * every instance to it (see {@link FilterResize}). Null: off (default). Needs
     * {@link #rollout} and, to load the grown generation, {@link #onResizedToLoad}.
     */
    public RedisBloomFilter.Builder autoResize(FilterResize.Policy policy) {
        this.resizePolicy = policy;
        return self();
    }

    /**
     * Called (off the heartbeat's thread) with a grown generation to load from the filter's
     * source: see {@link FilterGenerations#onResizedToLoad}. Instances follow a resize another
     * decided whether or not they resize themselves.
     */
    public RedisBloomFilter.Builder onResizedToLoad(Consumer<GrownGeneration> listener) {
        this.resizedLoadListener = listener;
        return self();
    }

    /**
     * The configured geometry, when the one given to {@link RedisBloomFilter#builder} is a
     * larger one auto-resize chose earlier ({@link FilterResize#adopted}); shown in the status.
     */
    public RedisBloomFilter.Builder resizedFrom(FilterGeometry configured) {
        this.resizedFrom = configured;
        return self();
    }

    /**
     * Runs what a check or an add must not wait for: mirror pages, the mirror's subscription,
     * re-warm requests, trimming a full journal, acting on a rewind. Default: daemon threads
     * shared by every filter. Never a Redis client's I/O thread: its tasks call Redis and wait.
     */
    public RedisBloomFilter.Builder background(Executor executor) {
        checkArgument(executor != null, "background executor of filter '%s' must not be null", name);
        this.background = executor;
        return self();
    }

    private static String defaultInstanceId() {
        return ManagementFactory.getRuntimeMXBean().getName() + ":" + UUID.randomUUID().toString().substring(0, 8);
    }

    private RedisBloomFilter.Builder self() {
        return (RedisBloomFilter.Builder) this;
    }
}
