package dev.bloomguard.core;

import static dev.bloomguard.core.internal.Arguments.checkArgument;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;

import org.slf4j.LoggerFactory;

import dev.bloomguard.core.check.FilterChecks;
import dev.bloomguard.core.check.NotReadySignals;
import dev.bloomguard.core.check.Verdicts;
import dev.bloomguard.core.events.FilterEvents;
import dev.bloomguard.core.events.PeerEvents;
import dev.bloomguard.core.hash.KeyHash;
import dev.bloomguard.core.hash.KeyType;
import dev.bloomguard.core.internal.FilterContext;
import dev.bloomguard.core.load.BulkLoad;
import dev.bloomguard.core.load.FilterLoader;
import dev.bloomguard.core.load.LiveMeta;
import dev.bloomguard.core.load.LoadLock;
import dev.bloomguard.core.mirror.BitmapMirror;
import dev.bloomguard.core.mirror.MirrorSettings;
import dev.bloomguard.core.mirror.MirrorStats;
import dev.bloomguard.core.mirror.TrustLease;
import dev.bloomguard.core.misses.RememberedMisses;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.BitmapStoreException;
import dev.bloomguard.core.redis.CircuitBreaker;
import dev.bloomguard.core.rollout.FilterGenerations;
import dev.bloomguard.core.rollout.GenerationDescriptor;
import dev.bloomguard.core.rollout.FilterResize;
import dev.bloomguard.core.status.StatusReader;
import dev.bloomguard.core.write.AddCounts;
import dev.bloomguard.core.write.FilterWrites;
import dev.bloomguard.core.write.JournalUpkeep;
import dev.bloomguard.core.write.RewindWatch;

/**
 * A Bloom filter kept as a Redis bitmap: the programmatic API, usable without Spring.
 *
 * <p>A check is one {@code BITFIELD_RO} that reads the key's k bits and the ready marker
 * together. Only a complete filter (marker set) that has a clear bit answers
 * {@link Membership#ABSENT}; a missing, half-written or unreachable filter answers
 * {@link Membership#NOT_READY} or {@link Membership#UNAVAILABLE}, and callers let those through.
 *
 * <p>A load builds the bitmap in memory, uploads it to a staging key and swaps it in with one
 * script that first replays the adds journal. Every add, on any instance, is pushed to that
 * journal before its bits are set, so a swap never drops a key added while the load ran, or
 * since the previous swap (which also covers a transaction that commits after the warmup
 * query's snapshot). The swap checks that Redis kept the whole load (the staging key as uploaded,
 * the journal since the load began) and changes nothing otherwise. The swap empties the journal: a
 * key that exists only through {@link #add} and not in the load's source survives the next load,
 * not the one after.
 *
 * <p>The one thing easy to get wrong: {@link #mightContain} is {@code false} only for
 * {@code ABSENT}. Treating "cannot tell" as "absent" would block real keys.
 *
 * <p>This class is a façade: it routes each call to the generation that answers during a rolling
 * change ({@link FilterGenerations}), chunks large batches, and hands the rest to its parts, one
 * package each: {@code check} (probes, verdicts), {@code write} (adds, journal upkeep, rewinds),
 * {@code load} (bulk load, lock, live metadata), {@code status}, {@code events} (other instances),
 * {@code mirror} and {@code misses}. See {@code docs/architecture.md}. What a guard uses is
 * {@link FilterGuard}; what an operator uses, {@link FilterOperations}.
 *
 * <p>Size: still over 300 lines. The façade is about 600 (each public method a delegation and its
 * contract) and its {@link Builder} about 260, where every setting is described once; moving the
 * builder out would rename {@code RedisBloomFilter.Builder}, which callers name.
 */
public final class RedisBloomFilter implements FilterGuard, FilterOperations {

    /** Default background executor: daemon threads shared by all filters (mirror pages, subscriptions, re-warms). */
    private static final ExecutorService BACKGROUND = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "bloomguard-mirror");
        thread.setDaemon(true);
        return thread;
    });

    private final FilterContext filter;
    private final String keyPrefix;
    private final int maxBatchSize;
    private final BitmapMirror mirror;
    private final RememberedMisses misses;
    /** With a mirror that trusts its clear bits: what keeps them trustworthy. */
    private final TrustLease trust;
    private final FilterGenerations generations;
    /** Adds, swaps and remembered misses, told to and heard from other instances. */
    private final FilterEvents events;
    private final NotReadySignals signals;
    private final FilterChecks checks;
    private final FilterWrites writes;
    private final JournalUpkeep journal;
    private final RewindWatch rewinds;
    private final FilterLoader loader;
    private final LoadLock lock;
    private final StatusReader status;
    private volatile boolean blockingSuspended;

    private RedisBloomFilter(Builder builder) {
        String name = builder.name;
        Executor background = builder.background;
        FilterKeys keys = FilterKeys.of(builder.keyPrefix, name, builder.geometry, builder.keyType, builder.hash.id());
        this.filter = new FilterContext(name, builder.geometry, builder.keyType, builder.hash, keys, builder.store,
                builder.checkTimeout, builder.instanceId, background, LoggerFactory.getLogger(RedisBloomFilter.class));
        this.keyPrefix = builder.keyPrefix;
        this.maxBatchSize = builder.maxBatchSize;
        this.events = FilterEvents.of(name, keys.events(), builder.store);
        // A mirror that blocks on its clear bits must hear every add: see TrustLease.
        BitmapMirror[] mirrored = new BitmapMirror[1];
        this.trust = builder.mirror == null || !builder.mirror.trustAbsent() ? null
                : new TrustLease(name, keys.meta(), events, () -> mirrored[0].clear());
        this.mirror = builder.mirror == null ? null
                : new BitmapMirror(name, keys::live, builder.geometry, builder.store, builder.mirror,
                        trust == null ? events::hearing : trust::trusts, background);
        mirrored[0] = mirror;
        this.misses = builder.misses == null ? null
                : new RememberedMisses(name, keys, builder.store, builder.misses, builder.checkTimeout, events);
        this.generations = builder.rolloutHeartbeat == null ? null
                : new FilterGenerations(this, builder.store, builder.keyPrefix, builder.instanceId,
                        builder.rolloutHeartbeat, builder.rolloutGrace, builder.otherGenerations(),
                        () -> background.execute(this::notReady));
        Consumer<RedisBloomFilter> notReadyListener = builder.notReadyListener;
        this.signals = new NotReadySignals(filter, generations,
                notReadyListener == null ? null : () -> notReadyListener.accept(this));
        this.checks = new FilterChecks(filter, mirror, () -> blockingSuspended, signals::notReady);
        this.journal = new JournalUpkeep(filter, builder.journalRetention, builder.journalCapacity);
        this.rewinds = new RewindWatch(filter, mirror, events, generations, signals::notReady);
        this.writes = new FilterWrites(filter, mirror, misses, events, rewinds, journal);
        this.loader = new FilterLoader(filter, keyPrefix, generations, events, mirror, misses, builder.maxShrink,
                journal, builder.resizePolicy);
        this.lock = new LoadLock(filter);
        this.status = new StatusReader(filter, checks, loader, lock, builder.resizedFrom);
        if (generations != null && builder.resizedLoadListener != null) {
            Consumer<RedisBloomFilter> listener = builder.resizedLoadListener;
            generations.onResizedToLoad(resized -> background.execute(() -> listener.accept(resized)));
        }
        if (mirror != null || misses != null && misses.settings().shared()) {
            events.listen(new PeerEvents(builder.geometry.shards(), mirror, misses, trust), background);
        }
        if (trust != null) {
            trust.start();
        }
    }

    private void notReady() {
        signals.notReady();
    }

    public static Builder builder(String name, FilterGeometry geometry, BitmapStore store) {
        return new Builder(name, geometry, store);
    }

    /**
     * The generations of this filter during a rolling change of its configuration, when the
     * builder asked for them ({@link Builder#rollout}); see {@link FilterGenerations}.
     */
    public Optional<FilterGenerations> generations() {
        return Optional.ofNullable(generations);
    }

    /** Stops listening for other instances' adds; the filter keeps working without its mirror's updates. */
    public void close() {
        if (trust != null) {
            trust.close();
        }
        events.close();
    }

    @Override
    public String name() {
        return filter.name();
    }

    public FilterGeometry geometry() {
        return filter.geometry();
    }

    public FilterKeys keys() {
        return filter.keys();
    }

    /** How keys are compared, when the filter was given a key type; empty: by their Java type ({@code KeyEncoding}). */
    public Optional<KeyType> keyType() {
        return Optional.ofNullable(filter.keyType());
    }

    /** How keys are spread over the bits: murmur3, or siphash under a secret; part of the key names. */
    public KeyHash hash() {
        return filter.hash();
    }

    /** Names this process in load locks and in the live bitmap's metadata. */
    public String instanceId() {
        return filter.instanceId();
    }

    /** The generation that answers checks now: this one, another during a rolling change, or null when none can. */
    private RedisBloomFilter answering() {
        return generations == null ? this : generations.answering();
    }

    @Override
    public Membership check(Object key) {
        RedisBloomFilter answering = answering();
        if (answering == this) {
            return checks.check(key);
        }
        if (answering == null) {
            signals.noGenerationAnswers();
            return Membership.NOT_READY;
        }
        boolean suspended = blockingSuspended; // when sent; see Probe#suspended
        return Verdicts.suspendedAbsent(answering.check(key), suspended || blockingSuspended);
    }

    @Override
    public CompletableFuture<Membership> checkAsync(Object key) {
        RedisBloomFilter answering = answering();
        if (answering == this) {
            return checks.checkAsync(key);
        }
        if (answering == null) {
            signals.noGenerationAnswers();
            return CompletableFuture.completedFuture(Membership.NOT_READY);
        }
        boolean suspended = blockingSuspended;
        return answering.checkAsync(key).thenApply(answer -> Verdicts.suspendedAbsent(answer, suspended || blockingSuspended));
    }

    @Override
    public List<Membership> checkAll(Collection<?> keys) {
        if (keys.size() > maxBatchSize) {
            return Chunks.map(keys, maxBatchSize, this::checkAll);
        }
        RedisBloomFilter answering = answering();
        if (answering == this) {
            return checks.checkAll(keys);
        }
        if (answering == null) {
            signals.noGenerationAnswers();
            return Verdicts.notReady(keys);
        }
        boolean suspended = blockingSuspended;
        return Verdicts.suspendedAbsent(answering.checkAll(keys), suspended || blockingSuspended);
    }

    @Override
    public CompletableFuture<List<Membership>> checkAllAsync(Collection<?> keys) {
        if (keys.size() > maxBatchSize) {
            return Chunks.mapAsync(keys, maxBatchSize, this::checkAllAsync);
        }
        RedisBloomFilter answering = answering();
        if (answering == this) {
            return checks.checkAllAsync(keys);
        }
        if (answering == null) {
            signals.noGenerationAnswers();
            return CompletableFuture.completedFuture(Verdicts.notReady(keys));
        }
        boolean suspended = blockingSuspended;
        return answering.checkAllAsync(keys)
                .thenApply(answers -> Verdicts.suspendedAbsent(answers, suspended || blockingSuspended));
    }

    @Override
    public boolean mightContain(Object key) {
        return check(key) != Membership.ABSENT;
    }

    /**
     * While suspended, a complete filter's "absent" is answered {@link Membership#NOT_READY}: the
     * live bitmap is not known to come from the source its owner loads (the warmup query changed
     * since it was built, or that is not confirmed yet), so it may lack real keys. Local to this
     * instance, no Redis involved; a check stays one round trip.
     */
    public void setBlockingSuspended(boolean suspended) {
        this.blockingSuspended = suspended;
    }

    public boolean isBlockingSuspended() {
        return blockingSuspended;
    }

    /**
     * Whether the generation that answers this filter's checks now lets its "absent" through:
     * this one {@link #isBlockingSuspended suspended}, or, during a rolling change, the other
     * generation that answers (loaded from another source). Why a check was bypassed, for metrics.
     */
    public boolean isAnsweringSuspended() {
        RedisBloomFilter answering = generations == null ? null : generations.answering();
        return answering != null && answering != this ? answering.isBlockingSuspended() : blockingSuspended;
    }

    /** The state of the circuit breaker in front of this filter's Redis. */
    public CircuitBreaker.State circuitState() {
        return filter.store().circuitState();
    }

    /** True when the live bitmap of every shard is complete (its marker is set). */
    public boolean isReady() {
        return isComplete().orElse(false);
    }

    /**
     * Whether the live bitmap of every shard is complete, as Redis answered; empty when Redis did
     * not (a timeout, an open circuit), which says nothing about the filter.
     */
    public Optional<Boolean> isComplete() {
        return checks.isComplete();
    }

    @Override
    public void add(Object key) {
        Objects.requireNonNull(key, "key");
        addAll(List.of(key));
    }

    @Override
    public void addAll(Collection<?> keys) {
        if (keys.size() > maxBatchSize) {
            Chunks.forEach(keys, maxBatchSize, this::addAll);
            return;
        }
        writes.addAll(keys, () -> {
            if (generations != null) {
                generations.addToOthers(keys);
            }
        });
    }

    @Override
    public CompletableFuture<Void> addAllAsync(Collection<?> keys) {
        if (keys.size() > maxBatchSize) {
            return Chunks.forEachAsync(keys, maxBatchSize, this::addAllAsync);
        }
        return writes.addAllAsync(keys, () -> generations == null ? CompletableFuture.completedFuture(null)
                : generations.addToOthersAsync(keys));
    }

    /**
     * Forgets any remembered miss of {@code added}, keys added a moment ago (see {@link #addAll}),
     * in this filter's generation and in every other generation it writes to during a rolling
     * change (whose instances remember misses under their own keys): the starter calls it once
     * more after the commit of a transaction that added them, since a lookup may not see their
     * rows until then. Completes once Redis has done it.
     */
    public CompletableFuture<Void> forgetMissesAsync(Collection<?> added) {
        CompletableFuture<Void> forgotten = writes.forgetOwnMissesAsync(added);
        if (generations != null) {
            for (RedisBloomFilter other : generations.others()) {
                forgotten = forgotten.thenCombine(other.writes.forgetOwnMissesAsync(added), (mine, theirs) -> null);
            }
        }
        return forgotten;
    }

    /**
     * The keys this filter remembers as absent after a guarded method found nothing, when the
     * builder asked for them ({@link Builder#rememberMisses}); see {@link RememberedMisses}.
     */
    public Optional<RememberedMisses> rememberedMisses() {
        return Optional.ofNullable(misses);
    }

    /**
     * Whether {@code key} is remembered as absent ({@link RememberedMisses#isRememberedAsync}):
     * false at once without remembered misses or when this instance's index does not point at it.
     */
    public CompletableFuture<Boolean> isRememberedMissAsync(Object key, String scope) {
        return misses == null || !answersItself() ? CompletableFuture.completedFuture(Boolean.FALSE)
                : misses.isRememberedAsync(filter.canonical(key), scope);
    }

    /**
     * Remembers that the lookup {@code scope} (a method), guarded by a check begun at
     * {@code checkStartedNanos}, found nothing for {@code key}.
     */
    public CompletableFuture<Boolean> rememberMissAsync(Object key, String scope, long checkStartedNanos) {
        return misses == null || !answersItself() ? CompletableFuture.completedFuture(Boolean.FALSE)
                : misses.rememberAsync(filter.canonical(key), scope, checkStartedNanos);
    }

    /**
     * Whether this filter's own generation answers its checks. Misses are remembered, and
     * confirmed, under the own generation's keys, where only the writers that know it mark and
     * forget their adds: while another generation answers (a rolling change, before the own one
     * is loaded covering every writer), a writer that does not know the own one yet adds without
     * a trace there, and its key's miss would be remembered after its add.
     */
    private boolean answersItself() {
        return generations == null || generations.answering() == this;
    }

    /** The local mirror's counters, when the filter has one. */
    public Optional<MirrorStats> mirrorStats() {
        return mirror == null ? Optional.empty() : Optional.of(mirror.stats());
    }

    /**
     * Keeps each shard's adds journal within its retention and capacity: every add stays at least
     * {@link Builder#journalRetention} and at most about twice that. Call it periodically (the
     * Spring starter does, every half retention); adds call it by themselves once the journal is
     * over its capacity.
     *
     * @return adds dropped beyond the capacity; the swaps of the next retention then merge the
     *         live bitmap, so that dropping them loses no key
     */
    public long maintainJournal() {
        return journal.maintain();
    }

    /** How long the journal keeps each add; see {@link Builder#journalRetention}. */
    public Duration journalRetention() {
        return journal.retention();
    }

    /**
     * Notices Redis going back in time (a restart from an older snapshot, a failover to a replica
     * that lagged) and then makes the filter not ready on every instance until it is loaded again;
     * see {@link RewindWatch}. Call it periodically (the Spring starter does, every
     * {@code bloom-guard.rewind-check-interval}); an instance that adds notices at its next add.
     *
     * @return true when this instance found Redis behind and made the filter not ready
     * @throws BitmapStoreException when Redis cannot be read; try again later
     */
    @Override
    public boolean verifyNotBehind() {
        return rewinds.verifyNotBehind();
    }

    /** Loads the filter from a stream of keys; closes the stream. See {@link #load(Iterator)}. */
    public LoadReport load(Stream<?> source) {
        try (source) {
            return load(source.iterator());
        }
    }

    /**
     * Replaces the filter with one built from {@code source} plus every add journaled since the
     * previous swap: the bitmap is built in memory, uploaded to a staging key and swapped in
     * atomically. Checks keep reading the old filter until the swap. Null keys are skipped.
     * Takes no lock: see {@link #tryLockForLoad} to keep other instances from loading at once.
     *
     * @throws IllegalStateException when a load of this filter is already running in this process
     * @throws BitmapStoreException when Redis fails; the live filter is then left as it was
     */
    public LoadReport load(Iterator<?> source) {
        return load(source, null);
    }

    /**
     * As {@link #load(Iterator)}, recording {@code sourceId} (e.g. a fingerprint of the warmup
     * query) with the live bitmap, so that a later start can tell whether the filter in Redis
     * was built from the same source; see {@link #liveSourceId()}.
     */
    public LoadReport load(Iterator<?> source, String sourceId) {
        return load(source, sourceId, false);
    }

    /**
     * As {@link #load(Iterator, String)}; unless {@code force}, a load that read far fewer keys
     * than the live filter holds (see {@link Builder#maxShrink}) is not swapped in.
     *
     * @throws LoadRefusedException when the load shrank the filter too much; the live filter is kept
     */
    @Override
    public LoadReport load(Iterator<?> source, String sourceId, boolean force) {
        try (PendingLoad pending = beginLoad()) {
            return pending.load(source, sourceId, force);
        }
    }

    /**
     * Starts a load: call it before the source takes its snapshot (before the warmup query
     * runs), then {@link PendingLoad#load} with the keys; see {@link BulkLoad}.
     *
     * @throws IllegalStateException when a load of this filter is already running in this process
     */
    @Override
    public PendingLoad beginLoad() {
        return new PendingLoad(loader.begin());
    }

    /** A load begun by {@link #beginLoad}; closing it ends the load, whether or not it swapped. */
    public static final class PendingLoad implements AutoCloseable {

        private final BulkLoad load;

        private PendingLoad(BulkLoad load) {
            this.load = load;
        }

        /**
         * Builds the bitmap from {@code source}, uploads it and swaps it in; see
         * {@link RedisBloomFilter#load(Iterator, String, boolean)}. Once per pending load.
         *
         * @throws IncompleteLoadException when Redis lost part of the load before the swap, or a
         *         newer load began meanwhile; load again
         */
        public LoadReport load(Iterator<?> source, String sourceId, boolean force) {
            return load.load(source, sourceId, force);
        }

        @Override
        public void close() {
            load.close();
        }
    }

    /**
     * Takes the cross-instance load lock, so that one instance at a time warms or rebuilds the
     * filter. The lease renews the lock every third of {@code ttl} on {@code renewals} until it
     * is closed; a crashed holder's lock expires after {@code ttl}.
     *
     * @return the lease, or empty when another instance holds the lock
     */
    @Override
    public Optional<LoadLease> tryLockForLoad(Duration ttl, ScheduledExecutorService renewals) {
        return lock.tryLock(ttl, renewals).map(LoadLease::new);
    }

    /** A held load lock; closing it stops the renewals and releases the lock if still ours. */
    public static final class LoadLease implements AutoCloseable {

        private final LoadLock.Lease lease;

        private LoadLease(LoadLock.Lease lease) {
            this.lease = lease;
        }

        @Override
        public void close() {
            lease.close();
        }
    }

    /** The instance holding the load lock, if any. */
    public Optional<String> lockHolder() {
        return lock.holder();
    }

    /** The source the live bitmap was loaded from, as given to {@link #load(Iterator, String)}, if recorded. */
    public Optional<String> liveSourceId() {
        return LiveMeta.read(filter).source();
    }

    /** When the live bitmap was swapped in (by any instance), if the metadata says. */
    public Optional<Instant> liveSince() {
        return LiveMeta.read(filter).loadedAt();
    }

    /**
     * When the load that produced the live bitmap began, before it read its source (by the
     * loading instance's clock), if the metadata says.
     */
    public Optional<Instant> liveLoadStarted() {
        return LiveMeta.read(filter).loadStarted();
    }

    /**
     * Reads the filter's state from Redis: a {@code BITCOUNT} over the whole bitmap plus a few
     * small reads. For operators; never on a request path. While a grown generation answers, its state.
     */
    @Override
    public FilterStatus status() {
        Optional<RedisBloomFilter> resized = generations == null ? Optional.empty() : generations.answeringResized();
        return resized.isPresent() ? status.resized(resized.get().status()) : status.read();
    }

    public boolean isLoading() {
        return loader.isLoading();
    }

    /** The last load this instance completed, if any. */
    public Optional<LoadReport> lastLoad() {
        return loader.lastLoad();
    }

    @Override
    public String toString() {
        return "RedisBloomFilter[" + filter.name() + ", " + filter.geometry() + ", " + filter.hash() + ", key="
                + filter.keys().live() + "]";
    }

    /** Builds a {@link RedisBloomFilter}; every setting has a default but the name, geometry and store. */
    public static final class Builder {

        private final String name;
        private final FilterGeometry geometry;
        private final BitmapStore store;
        private String keyPrefix = "bg";
        private Duration checkTimeout = Duration.ofMillis(50);
        private String instanceId = defaultInstanceId();
        private long journalCapacity = 1_000_000;
        private Duration journalRetention = Duration.ofMinutes(10);
        private Duration rolloutHeartbeat;
        private Duration rolloutGrace;
        private double maxShrink = 0.5;
        private int maxBatchSize = 1_000;
        private Consumer<RedisBloomFilter> notReadyListener;
        private MirrorSettings mirror;
        private RememberedMisses.Settings misses;
        private KeyType keyType;
        private KeyHash hash = KeyHash.murmur3();
        private FilterResize.Policy resizePolicy;
        private FilterGeometry resizedFrom;
        private Consumer<RedisBloomFilter> resizedLoadListener;
        private Executor background = BACKGROUND;

        private Builder(String name, FilterGeometry geometry, BitmapStore store) {
            checkArgument(name != null && !name.isBlank(), "filter name must not be blank");
            checkArgument(geometry != null, "geometry of filter '%s' must not be null", name);
            checkArgument(store != null, "store of filter '%s' must not be null", name);
            this.name = name;
            this.geometry = geometry;
            this.store = store;
        }

        /** Namespace of the filter's Redis keys; default {@code bg}. */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
            return this;
        }

        /** A check slower than this answers {@link Membership#UNAVAILABLE}; default 50 ms. */
        public Builder checkTimeout(Duration checkTimeout) {
            checkArgument(checkTimeout != null && checkTimeout.toNanos() > 0, "check timeout (%s) must be positive",
                    checkTimeout);
            this.checkTimeout = checkTimeout;
            return this;
        }

        /** Names this process in load locks; default {@code pid@host:random}. */
        public Builder instanceId(String instanceId) {
            checkArgument(instanceId != null && !instanceId.isBlank(), "instance id must not be blank");
            checkArgument(!instanceId.equals(AddCounts.REWINDS_FIELD), "instance id must not be %s",
                    AddCounts.REWINDS_FIELD);
            this.instanceId = instanceId;
            return this;
        }

        /**
         * How many adds the journal of a shard holds at most (default 1,000,000, about 40 MB in
         * Redis for k = 7) within its {@link #journalRetention}. Beyond it the oldest leave the
         * journal, and for the next retention every swap merges the live bitmap into the new one,
         * so that no add is lost; a load whose own mark left fails and loads again.
         */
        public Builder journalCapacity(long journalCapacity) {
            checkArgument(journalCapacity >= 1, "journal capacity (%s) must be at least 1", journalCapacity);
            this.journalCapacity = journalCapacity;
            return this;
        }

        /**
         * Largest fraction (default 0.5) by which a load may read fewer keys than the live filter
         * holds and still be swapped in; a bigger drop is refused with a {@link LoadRefusedException}
         * unless the load is forced. 1 accepts any load, 0 refuses any drop.
         */
        /**
         * How long the journal keeps an add for the loads to come (default 10 minutes): at least
         * as long as the longest transaction that adds a key, so that a load whose snapshot could
         * not see the uncommitted row still replays its add, however many loads swap before it
         * commits. Each add stays between one and two retentions.
         */
        public Builder journalRetention(Duration journalRetention) {
            checkArgument(journalRetention != null && !journalRetention.isNegative(),
                    "journal retention (%s) must not be negative", journalRetention);
            this.journalRetention = journalRetention;
            return this;
        }

        /**
         * Most keys of a batch sent in one command per shard (default 1,000): a larger batch is
         * checked or added in chunks of this many, one after another, so that no caller makes
         * Redis run one unbounded command while its other clients wait.
         */
        public Builder maxBatchSize(int maxBatchSize) {
            checkArgument(maxBatchSize >= 1, "max batch size (%s) must be at least 1", maxBatchSize);
            this.maxBatchSize = maxBatchSize;
            return this;
        }

        public Builder maxShrink(double maxShrink) {
            checkArgument(maxShrink >= 0 && maxShrink <= 1, "max shrink (%s) must be in [0, 1]", maxShrink);
            this.maxShrink = maxShrink;
            return this;
        }

        /**
         * Called (on the checking thread, so it must return at once) whenever a check finds the
         * filter missing or incomplete: the hook for scheduling a re-warm.
         */
        public Builder onNotReady(Consumer<RedisBloomFilter> listener) {
            this.notReadyListener = listener;
            return this;
        }

        /** Keeps a local, memory-bounded mirror of the bitmap that answers "present" without Redis. */
        public Builder mirror(MirrorSettings settings) {
            this.mirror = settings;
            return this;
        }

        /**
         * Remembers keys that passed the filter but that the guarded method did not find, and
         * forgets them on every add of the key; see {@link RememberedMisses}. Null: off (default).
         */
        public Builder rememberMisses(RememberedMisses.Settings settings) {
            this.misses = settings;
            return this;
        }

        /**
         * Compares keys as the database compares them (see {@link KeyType}); default none: keys
         * hash by their Java type. Part of the stored identity: a key type whose canonical form
         * of an ordinary value differs from the Java-type one (case-insensitive text, {@code CHAR(n)}
         * text) gets Redis keys of its own, so bits written one way are never read the other.
         */
        public Builder keyType(KeyType keyType) {
            this.keyType = keyType;
            return this;
        }

        /**
         * How keys are spread over the bits (default murmur3, bit-compatible with Guava). Part of
         * the stored identity: siphash filters have key names of their own, one set per secret.
         * For a secret kept in Redis, pass {@link HashSecrets#stored}; for a configured one,
         * {@link HashSecrets#configured}.
         */
        public Builder hash(KeyHash hash) {
            checkArgument(hash != null, "hash of filter '%s' must not be null", name);
            this.hash = hash;
            return this;
        }

        /**
         * Keeps the filter right while instances of differing configurations run side by side
         * (a rolling deploy that changes its geometry, key type or hash): every add reaches every
         * generation in use, and checks are answered by a generation that holds every key. The
         * caller must call {@link FilterGenerations#heartbeat()} before the instance serves and
         * every {@code heartbeat}; a generation nobody used for {@code grace} is deleted.
         */
        public Builder rollout(Duration heartbeat, Duration grace) {
            checkArgument(heartbeat != null && heartbeat.toMillis() > 0, "rollout heartbeat (%s) must be positive",
                    heartbeat);
            checkArgument(grace != null && grace.compareTo(heartbeat.multipliedBy(4)) >= 0,
                    "rollout grace period (%s) must be at least four heartbeats (%s)", grace, heartbeat);
            this.rolloutHeartbeat = heartbeat;
            this.rolloutGrace = grace;
            return this;
        }

        /**
         * Auto-resize: a load that finds the filter over capacity records in Redis the larger
         * geometry {@code policy} grows it into, and the {@link #rollout rollout} machinery moves
         * every instance to it (see {@link FilterResize}). Null: off (default). Needs
         * {@link #rollout} and, to load the grown generation, {@link #onResizedToLoad}.
         */
        public Builder autoResize(FilterResize.Policy policy) {
            this.resizePolicy = policy;
            return this;
        }

        /**
         * Called (off the heartbeat's thread) with a grown generation to load from the filter's
         * source: see {@link FilterGenerations#onResizedToLoad}. Instances follow a resize another
         * decided whether or not they resize themselves.
         */
        public Builder onResizedToLoad(Consumer<RedisBloomFilter> listener) {
            this.resizedLoadListener = listener;
            return this;
        }

        /**
         * The configured geometry, when the one given to {@link RedisBloomFilter#builder} is a
         * larger one auto-resize chose earlier ({@link FilterResize#adopted}); shown in the status.
         */
        public Builder resizedFrom(FilterGeometry configured) {
            this.resizedFrom = configured;
            return this;
        }

        /**
         * Runs what a check or an add must not wait for: mirror pages, the mirror's subscription,
         * re-warm requests, trimming a full journal, acting on a rewind. Default: daemon threads
         * shared by every filter. Never a Redis client's I/O thread: its tasks call Redis and wait.
         */
        public Builder background(Executor executor) {
            checkArgument(executor != null, "background executor of filter '%s' must not be null", name);
            this.background = executor;
            return this;
        }

        public RedisBloomFilter build() {
            return new RedisBloomFilter(this);
        }

        /**
         * Builds the other generations of this filter met during a rolling change, with this
         * builder's settings as they are now (a later change to the builder does not reach them).
         */
        private Function<String, RedisBloomFilter> otherGenerations() {
            String prefix = keyPrefix;
            Duration timeout = checkTimeout;
            String instance = instanceId;
            KeyHash own = hash;
            Duration retention = journalRetention;
            long capacity = journalCapacity;
            int batch = maxBatchSize;
            RememberedMisses.Settings remembered = misses;
            FilterResize.Policy resize = resizePolicy;
            Executor executor = background;
            return descriptor -> builder(name, GenerationDescriptor.geometry(descriptor), store).keyPrefix(prefix)
                    .checkTimeout(timeout).instanceId(instance).keyType(GenerationDescriptor.keyType(descriptor))
                    .hash(hashOf(own, prefix, GenerationDescriptor.hashId(descriptor))).journalRetention(retention)
                    .journalCapacity(capacity).maxBatchSize(batch).rememberMisses(remembered).autoResize(resize)
                    .background(executor).build();
        }

        /**
         * The hash of another generation of this filter: its own when the ids match, else one whose
         * secret Redis holds. One this instance cannot find cannot be written to: the heartbeat that
         * meets it fails, so that this instance soon neither answers nor adds (bypass, adds retried)
         * rather than leave keys out of a generation that others read.
         */
        private KeyHash hashOf(KeyHash own, String prefix, String hashId) {
            if (hashId.equals(own.id())) {
                return own;
            }
            if (hashId.equals(KeyHash.murmur3().id())) {
                return KeyHash.murmur3();
            }
            return HashSecrets.find(store, prefix, name, hashId).orElseThrow(() -> new BitmapStoreException("filter '"
                    + name + "': another instance uses a generation hashed with siphash " + hashId + ", whose secret"
                    + " this instance cannot find in Redis (its instances publish it at each heartbeat), so it cannot"
                    + " add to it yet", null));
        }

        private static String defaultInstanceId() {
            return ManagementFactory.getRuntimeMXBean().getName() + ":" + UUID.randomUUID().toString().substring(0, 8);
        }
    }
}
