package dev.bloomguard.core;

import static dev.bloomguard.core.internal.Arguments.checkArgument;

import java.lang.management.ManagementFactory;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.bloomguard.core.events.FilterEvents;
import dev.bloomguard.core.hash.BitPositions;
import dev.bloomguard.core.hash.KeyHash;
import dev.bloomguard.core.hash.KeyType;
import dev.bloomguard.core.misses.MissKeys;
import dev.bloomguard.core.misses.RememberedMisses;
import dev.bloomguard.core.mirror.BitmapMirror;
import dev.bloomguard.core.mirror.MirrorSettings;
import dev.bloomguard.core.mirror.TrustLease;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.BitmapStoreException;
import dev.bloomguard.core.redis.CircuitBreaker;
import dev.bloomguard.core.redis.PackedOffsets;
import dev.bloomguard.core.rollout.FilterGenerations;
import dev.bloomguard.core.rollout.FilterResize;
import dev.bloomguard.core.warmup.BitmapBuilder;

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
 * the journal since the load began) and changes nothing otherwise. The swap empties the journal: a key that exists only through
 * {@link #add} and not in the load's source survives the next load, not the one after.
 *
 * <p>The one thing easy to get wrong: {@link #mightContain} is {@code false} only for
 * {@code ABSENT}. Treating "cannot tell" as "absent" would block real keys.
 *
 * <p>Size: this class still holds probing, checks, adds, the load pipeline, swap and status
 * (the pub/sub events have moved to {@code events.FilterEvents}). Issue 15 splits the rest along
 * those seams into a small façade; not here, because the race fixes of this round (when a check
 * reads suspension, the order of forget and add) live in the same code and each move would have to
 * carry its tests' proof again; one redesign, reviewed once, costs less.
 */
public final class RedisBloomFilter {

    private static final Logger log = LoggerFactory.getLogger(RedisBloomFilter.class);

    /** Loads mirror pages and keeps mirror subscriptions alive; daemon threads shared by all filters. */
    private static final java.util.concurrent.ExecutorService MIRROR_LOADER = java.util.concurrent.Executors
            .newCachedThreadPool(runnable -> {
                Thread thread = new Thread(runnable, "bloomguard-mirror");
                thread.setDaemon(true);
                return thread;
            });

    /** Keys handed from the reading thread to the hashing thread at a time. */
    private static final int LOAD_BATCH = 4096;

    /**
     * Starts the journal entry a load leaves to find at its swap: 13 bytes, so never taken for an
     * add's packed offsets, whose length is a multiple of 4.
     */
    private static final SecureRandom MARKS = new SecureRandom();

    /**
     * Offsets one replay step sets. A bit set from Lua costs Redis about 2 µs (the {@code BITFIELD}
     * argument conversions dominate), so a step holds the server about a millisecond: 99 % of steps
     * under 1.6 ms on a 2-core machine, against 12 ms at 4,096 offsets (measured in
     * {@code RedisBloomFilterTest#replayingABigJournalHoldsRedisForMillisecondsPerCall}). The cost
     * is round trips: a million journaled adds take about 14,000 steps, a tenth more load time.
     */
    private static final int REPLAY_OFFSETS_PER_STEP = 512;

    /** A staging key left by a crashed load disappears by itself after this. */
    private static final Duration STAGING_EXPIRY = Duration.ofHours(1);

    private final String name;
    private final FilterGeometry geometry;
    private final KeyType keyType;
    private final KeyHash hash;
    private final FilterKeys keys;
    private final BitmapStore store;
    private final Duration checkTimeout;
    private final String instanceId;
    private final long journalCapacity;
    private final Duration journalRetention;
    private final double maxShrink;
    private final int maxBatchSize;
    private final Consumer<RedisBloomFilter> notReadyListener;
    private final BitmapMirror mirror;
    private final RememberedMisses misses;
    /** With a mirror that trusts its clear bits: what keeps them trustworthy. */
    private final TrustLease trust;
    private final FilterGenerations generations;
    private final String keyPrefix;
    /** How the filter grows when a load finds it over capacity; null: it does not (auto-resize off). */
    private final FilterResize.Policy resizePolicy;
    /** The configured geometry, when this filter's own is a larger one auto-resize chose earlier; else null. */
    private final FilterGeometry resizedFrom;
    /** Adds, swaps and remembered misses, told to and heard from other instances. */
    private final FilterEvents events;
    private volatile boolean blockingSuspended;
    private final AtomicBoolean loading = new AtomicBoolean();
    private final AtomicBoolean maintaining = new AtomicBoolean();
    /** The add counts this instance confirmed and saw, to notice Redis going back in time. */
    private final AddCounts addCounts;
    /** Rewinds noticed; a batch sent before one does not report it again. */
    private final java.util.concurrent.atomic.AtomicLong rewinds = new java.util.concurrent.atomic.AtomicLong();
    private volatile LoadReport lastLoad;

    private RedisBloomFilter(Builder builder) {
        this.name = builder.name;
        this.geometry = builder.geometry;
        this.keyType = builder.keyType;
        this.hash = builder.hash;
        this.keys = FilterKeys.of(builder.keyPrefix, builder.name, builder.geometry, builder.keyType, builder.hash.id());
        this.keyPrefix = builder.keyPrefix;
        this.resizePolicy = builder.resizePolicy;
        this.resizedFrom = builder.resizedFrom;
        this.store = builder.store;
        this.checkTimeout = builder.checkTimeout;
        this.instanceId = builder.instanceId;
        this.journalCapacity = builder.journalCapacity;
        this.journalRetention = builder.journalRetention;
        this.addCounts = new AddCounts(instanceId, geometry.shards());
        this.maxShrink = builder.maxShrink;
        this.maxBatchSize = builder.maxBatchSize;
        this.notReadyListener = builder.notReadyListener;
        this.events = FilterEvents.of(name, keys.events(), store);
        // A mirror that blocks on its clear bits must hear every add: see TrustLease.
        BitmapMirror[] mirrored = new BitmapMirror[1];
        this.trust = builder.mirror == null || !builder.mirror.trustAbsent() ? null
                : new TrustLease(name, keys.meta(), events, () -> mirrored[0].clear());
        this.mirror = builder.mirror == null ? null
                : new BitmapMirror(name, keys::live, geometry, store, builder.mirror,
                        trust == null ? events::hearing : trust::trusts, MIRROR_LOADER);
        mirrored[0] = mirror;
        this.misses = builder.misses == null ? null
                : new RememberedMisses(name, keys, store, builder.misses, checkTimeout, events);
        this.generations = builder.rolloutHeartbeat == null ? null
                : new FilterGenerations(this, store, builder.keyPrefix, instanceId, builder.rolloutHeartbeat,
                        builder.rolloutGrace, descriptor -> builder(name, FilterGenerations.geometry(descriptor), store)
                                .keyPrefix(builder.keyPrefix).checkTimeout(checkTimeout).instanceId(instanceId)
                                .keyType(FilterGenerations.keyType(descriptor))
                                .hash(hashOf(builder.keyPrefix, FilterGenerations.hashId(descriptor)))
                                .journalRetention(journalRetention)
                                .journalCapacity(journalCapacity).maxBatchSize(maxBatchSize)
                                .rememberMisses(builder.misses).autoResize(builder.resizePolicy).build(),
                        () -> MIRROR_LOADER.execute(this::notReady));
        if (generations != null && builder.resizedLoadListener != null) {
            Consumer<RedisBloomFilter> listener = builder.resizedLoadListener;
            generations.onResizedToLoad(resized -> MIRROR_LOADER.execute(() -> listener.accept(resized)));
        }
        if (mirror != null || misses != null && misses.settings().shared()) {
            events.listen(new PeerEvents(), MIRROR_LOADER);
        }
        if (trust != null) {
            trust.start();
        }
    }

    /**
     * The hash of another generation of this filter: its own when the ids match, else one whose
     * secret Redis holds. One this instance cannot find cannot be written to: the heartbeat that
     * meets it fails, so that this instance soon neither answers nor adds (bypass, adds retried)
     * rather than leave keys out of a generation that others read.
     */
    private KeyHash hashOf(String keyPrefix, String hashId) {
        if (hashId.equals(hash.id())) {
            return hash;
        }
        if (hashId.equals(KeyHash.murmur3().id())) {
            return KeyHash.murmur3();
        }
        return HashSecrets.find(store, keyPrefix, name, hashId).orElseThrow(() -> new BitmapStoreException("filter '"
                + name + "': another instance uses a generation hashed with siphash " + hashId + ", whose secret this"
                + " instance cannot find in Redis (its instances publish it at each heartbeat), so it cannot add to"
                + " it yet", null));
    }

    /**
     * The generations of this filter during a rolling change of its configuration, when the
     * builder asked for them ({@link Builder#rollout}); see {@link FilterGenerations}.
     */
    public Optional<FilterGenerations> generations() {
        return Optional.ofNullable(generations);
    }

    /**
     * What other instances tell this one: adds and swaps for the mirror, remembered and forgotten
     * misses for the index. While the subscription is down the mirror only misses bits, which
     * sends checks to Redis: slower, never wrong.
     */
    private final class PeerEvents implements FilterEvents.Listener {

        @Override
        public void onAdd(int shard, long[] offsets) {
            if (mirror != null && shard >= 0 && shard < geometry.shards()) {
                mirror.apply(shard, offsets, 0, offsets.length);
            }
        }

        @Override
        public void onSwap() {
            if (mirror != null) {
                mirror.clear();
            }
            if (misses != null) {
                misses.clear();
            }
        }

        /** Adds (and swaps) published before the subscription was confirmed were not heard. */
        @Override
        public void onSubscribed() {
            if (mirror != null) {
                mirror.clear();
            }
        }

        @Override
        public void onPing(long sender, long sequence) {
            if (trust != null) {
                trust.heard(sender, sequence);
            }
        }

        @Override
        public void onRemembered(long[] hashes) {
            if (misses != null) {
                misses.remembered(hashes);
            }
        }

        @Override
        public void onForgotten(long[] hashes) {
            if (misses != null) {
                misses.forgotten(hashes);
            }
        }
    }

    /** Stops listening for other instances' adds; the filter keeps working without its mirror's updates. */
    public void close() {
        if (trust != null) {
            trust.close();
        }
        events.close();
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
                : misses.isRememberedAsync(canonical(key), scope);
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

    /**
     * Remembers that the lookup {@code scope} (a method), guarded by a check begun at
     * {@code checkStartedNanos}, found nothing for {@code key}.
     */
    public CompletableFuture<Boolean> rememberMissAsync(Object key, String scope, long checkStartedNanos) {
        return misses == null || !answersItself() ? CompletableFuture.completedFuture(Boolean.FALSE)
                : misses.rememberAsync(canonical(key), scope, checkStartedNanos);
    }

    /**
     * Forgets remembered misses of keys about to be added; returns the failure, which fails the
     * add once its bits are set (so that other instances do not block the keys meanwhile). Every
     * filter does so, whether or not it remembers misses itself: instances of one filter need not
     * agree on {@code negative-cache} (a rolling change of it, a writer built with guard-core
     * alone), and a key one of them remembered must not outlive another's add. Before the add's
     * journal, bits and count, so that a Redis that comes back without the forget (an AOF or
     * replica cut just after it) has lost the counted add too, which the rewind check notices;
     * a remember in between is refused by the forget's mark.
     */
    private BitmapStoreException forgetMissesFirst(Collection<?> added) {
        try {
            forgetOwnMissesAsync(added).join();
            return null;
        }
        catch (CompletionException ex) {
            return ex.getCause() instanceof BitmapStoreException store ? store
                    : new BitmapStoreException("forgetting remembered misses failed: " + ex.getCause(), ex.getCause());
        }
    }

    /**
     * Forgets any remembered miss of {@code added}, keys added a moment ago (see {@link #addAll}),
     * in this filter's generation and in every other generation it writes to during a rolling
     * change (whose instances remember misses under their own keys): the starter calls it once
     * more after the commit of a transaction that added them, since a lookup may not see their
     * rows until then. Completes once Redis has done it.
     */
    public CompletableFuture<Void> forgetMissesAsync(Collection<?> added) {
        CompletableFuture<Void> forgotten = forgetOwnMissesAsync(added);
        if (generations != null) {
            for (RedisBloomFilter other : generations.others()) {
                forgotten = forgotten.thenCombine(other.forgetOwnMissesAsync(added), (mine, theirs) -> null);
            }
        }
        return forgotten;
    }

    /** Forgets the remembered misses of {@code added} under this generation's keys: a mark, then a delete. */
    private CompletableFuture<Void> forgetOwnMissesAsync(Collection<?> added) {
        List<Object> canonicalKeys = new ArrayList<>(added.size());
        for (Object key : added) {
            if (key != null) {
                canonicalKeys.add(canonical(key));
            }
        }
        if (misses != null) {
            return misses.forgetAsync(canonicalKeys);
        }
        List<String> missKeys = new ArrayList<>(canonicalKeys.size());
        List<String> addedKeys = new ArrayList<>(canonicalKeys.size());
        for (Object key : canonicalKeys) {
            String digest = MissKeys.digest(key);
            missKeys.add(MissKeys.miss(keys, digest));
            addedKeys.add(MissKeys.added(keys, digest));
        }
        try {
            // Marks too while some instance remembers misses of the filter: it may remember while this
            // one, without misses of its own, adds. None otherwise (they would outlive a deleted generation).
            return store.forgetMissesIfInUseAsync(keys.meta(), missKeys, addedKeys, MissKeys.ADDED_WINDOW);
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /** The local mirror's counters, when the filter has one. */
    public Optional<dev.bloomguard.core.mirror.MirrorStats> mirrorStats() {
        return mirror == null ? Optional.empty() : Optional.of(mirror.stats());
    }

    public static Builder builder(String name, FilterGeometry geometry, BitmapStore store) {
        return new Builder(name, geometry, store);
    }

    public String name() {
        return name;
    }

    public FilterGeometry geometry() {
        return geometry;
    }

    public FilterKeys keys() {
        return keys;
    }

    /** How keys are compared, when the filter was given a key type; empty: by their Java type ({@code KeyEncoding}). */
    public Optional<KeyType> keyType() {
        return Optional.ofNullable(keyType);
    }

    /** How keys are spread over the bits: murmur3, or siphash under a secret; part of the key names. */
    public KeyHash hash() {
        return hash;
    }

    /** What is hashed for {@code key}: the same for a check, an add and a loaded key, so that all three meet. */
    private Object canonical(Object key) {
        return keyType == null ? key : keyType.canonical(key);
    }

    /** Names this process in load locks and in the live bitmap's metadata. */
    public String instanceId() {
        return instanceId;
    }

    /**
     * What the filter says about {@code key}, in one Redis round trip to the node of the key's
     * shard (none when the mirror knows the key). Never throws for Redis failures.
     */
    public Membership check(Object key) {
        if (generations != null) {
            RedisBloomFilter answering = generations.answering();
            if (answering == null) {
                noGenerationAnswers();
                return Membership.NOT_READY;
            }
            if (answering != this) {
                boolean suspended = blockingSuspended;
                return suspendedAbsent(answering.check(key), suspended || blockingSuspended);
            }
        }
        Probe probe = probe(key);
        if (probe.local != null) {
            return probe.local;
        }
        BitSet set;
        try {
            set = store.readBits(keys.live(probe.shard), probe.offsets, probe.offsets.length, checkTimeout);
        }
        catch (BitmapStoreException ex) {
            log.debug("Filter '{}': check failed: {}", name, ex.getMessage());
            return Membership.UNAVAILABLE;
        }
        Membership answer = probe.answer(set);
        if (answer == Membership.NOT_READY) {
            notReady();
        }
        return answer;
    }

    /**
     * {@link #check} without blocking the calling thread, for reactive callers: the same one
     * {@code BITFIELD_RO} (or none), completing on the Redis client's I/O thread. The future
     * never completes exceptionally; Redis failures answer {@link Membership#UNAVAILABLE}.
     */
    public CompletableFuture<Membership> checkAsync(Object key) {
        if (generations != null) {
            RedisBloomFilter answering = generations.answering();
            if (answering == null) {
                noGenerationAnswers();
                return CompletableFuture.completedFuture(Membership.NOT_READY);
            }
            if (answering != this) {
                boolean suspended = blockingSuspended;
                return answering.checkAsync(key).thenApply(answer -> suspendedAbsent(answer, suspended || blockingSuspended));
            }
        }
        Probe probe = probe(key);
        if (probe.local != null) {
            return CompletableFuture.completedFuture(probe.local);
        }
        return store.readBitsAsync(keys.live(probe.shard), probe.offsets, probe.offsets.length, checkTimeout)
                .handle((set, error) -> {
                    if (error != null) {
                        log.debug("Filter '{}': check failed: {}", name, error.getMessage());
                        return Membership.UNAVAILABLE;
                    }
                    Membership answer = probe.answer(set);
                    if (answer == Membership.NOT_READY) {
                        MIRROR_LOADER.execute(this::notReady);
                    }
                    return answer;
                });
    }

    /**
     * The probes of one key; {@code local} is the mirror's answer when it needs no Redis. Reads
     * whether blocking is suspended now, before anything is sent: see {@link Probe#suspended}.
     */
    private Probe probe(Object key) {
        boolean suspended = blockingSuspended;
        int hashes = geometry.hashes();
        long[] offsets = new long[hashes + 1];
        int shard = BitPositions.fillSharded(hash, canonical(key), geometry.bits(), hashes, geometry.shards(), offsets, 0);
        offsets[hashes] = geometry.markerOffset();
        Membership local = null;
        if (mirror != null) {
            BitmapMirror.Local found = mirror.lookup(shard, offsets, hashes);
            if (found == BitmapMirror.Local.PRESENT) {
                local = Membership.PRESENT;
            }
            else if (found == BitmapMirror.Local.CLEAR_BIT && mirror.trustsAbsent() && !suspended
                    && mirror.knowsClear(shard, offsets, hashes) && mirror.knowsSet(shard, offsets[hashes])) {
                local = Membership.ABSENT;
            }
        }
        return new Probe(shard, offsets, local, suspended);
    }

    private final class Probe {

        final int shard;
        final long[] offsets;
        final Membership local;
        /**
         * Whether blocking was suspended when the check was sent. Read only when the reply
         * arrives, it could be lifted by a load of the own query that swapped in after Redis read
         * these bits from the other query's bitmap: a clear bit of a real key, taken for "absent".
         * A suspension at either time lets the key through.
         */
        final boolean suspended;

        Probe(int shard, long[] offsets, Membership local, boolean suspended) {
            this.shard = shard;
            this.offsets = offsets;
            this.local = local;
            this.suspended = suspended;
        }

        /** Reads Redis's reply: the marker (last probe) first, then the key's k bits. */
        Membership answer(BitSet set) {
            int hashes = offsets.length - 1;
            if (!set.get(hashes)) {
                return Membership.NOT_READY;
            }
            if (set.nextClearBit(0) >= hashes) {
                if (mirror != null) {
                    mirror.apply(shard, offsets, 0, hashes);
                }
                return Membership.PRESENT;
            }
            return suspended || blockingSuspended ? Membership.NOT_READY : Membership.ABSENT;
        }
    }

    /**
     * What the filter says about each of {@code keys}, in iteration order: one {@code BITFIELD_RO}
     * per shard that holds any of them, all sent before any reply is awaited, so a batch costs
     * about one round trip per node; more than {@link Builder#maxBatchSize} keys are sent in
     * chunks of that many, one after another. Null elements answer {@link Membership#PRESENT}:
     * they are never checked, so never blocked.
     */
    public List<Membership> checkAll(Collection<?> keys) {
        if (keys.size() > maxBatchSize) {
            return Chunks.map(keys, maxBatchSize, this::checkAll);
        }
        if (generations != null) {
            RedisBloomFilter answering = generations.answering();
            if (answering == null) {
                noGenerationAnswers();
                return notReady(keys);
            }
            if (answering != this) {
                boolean suspended = blockingSuspended;
                return suspendedAbsent(answering.checkAll(keys), suspended || blockingSuspended);
            }
        }
        BatchCheck batch = new BatchCheck(keys);
        if (batch.allInMirror()) {
            return batch.allPresent();
        }
        List<BitSet> answers = null;
        if (!batch.shardKeys.isEmpty()) {
            try {
                answers = store.readBitsMany(batch.shardKeys, batch.probes, checkTimeout);
            }
            catch (BitmapStoreException ex) {
                log.debug("Filter '{}': batch check failed: {}", name, ex.getMessage());
            }
        }
        List<Membership> result = batch.answers(answers);
        if (result.contains(Membership.NOT_READY)) {
            notReady();
        }
        return result;
    }

    /**
     * {@link #checkAll} without blocking the calling thread; see {@link #checkAsync}. The future
     * never completes exceptionally.
     */
    public CompletableFuture<List<Membership>> checkAllAsync(Collection<?> keys) {
        if (keys.size() > maxBatchSize) {
            return Chunks.mapAsync(keys, maxBatchSize, this::checkAllAsync);
        }
        if (generations != null) {
            RedisBloomFilter answering = generations.answering();
            if (answering == null) {
                noGenerationAnswers();
                return CompletableFuture.completedFuture(notReady(keys));
            }
            if (answering != this) {
                boolean suspended = blockingSuspended;
                return answering.checkAllAsync(keys).thenApply(answers -> suspendedAbsent(answers, suspended || blockingSuspended));
            }
        }
        BatchCheck batch = new BatchCheck(keys);
        if (batch.allInMirror()) {
            return CompletableFuture.completedFuture(batch.allPresent());
        }
        if (batch.shardKeys.isEmpty()) {
            return CompletableFuture.completedFuture(batch.answers(List.of()));
        }
        return store.readBitsManyAsync(batch.shardKeys, batch.probes, checkTimeout).handle((answers, error) -> {
            if (error != null) {
                log.debug("Filter '{}': batch check failed: {}", name, error.getMessage());
            }
            List<Membership> result = batch.answers(error == null ? answers : null);
            if (result.contains(Membership.NOT_READY)) {
                MIRROR_LOADER.execute(this::notReady);
            }
            return result;
        });
    }

    /** The probes of a batch grouped by shard: one {@code BITFIELD_RO} per shard, the marker last. */
    private final class BatchCheck {

        private final Collection<?> keys;
        private final int hashes = geometry.hashes();
        private final int[] shardOf;
        private final int[] slotOfShard;
        private final int[] positionInShard;
        private final boolean allInMirror;
        /** Whether blocking was suspended when the batch was sent: see {@link Probe#suspended}. */
        private final boolean suspended = blockingSuspended;
        final List<String> shardKeys = new ArrayList<>();
        final List<long[]> probes = new ArrayList<>();

        BatchCheck(Collection<?> keys) {
            this.keys = keys;
            int shards = geometry.shards();
            List<Object> present = new ArrayList<>(keys.size());
            for (Object key : keys) {
                if (key != null) {
                    present.add(key);
                }
            }
            long[] offsets = new long[present.size() * hashes];
            shardOf = new int[present.size()];
            int[] perShard = new int[shards];
            boolean inMirror = mirror != null && !present.isEmpty();
            for (int i = 0; i < present.size(); i++) {
                shardOf[i] = BitPositions.fillSharded(hash, canonical(present.get(i)), geometry.bits(), hashes, shards, offsets, i * hashes);
                perShard[shardOf[i]]++;
                if (inMirror) {
                    long[] single = java.util.Arrays.copyOfRange(offsets, i * hashes, (i + 1) * hashes);
                    inMirror = mirror.lookup(shardOf[i], single, hashes) == BitmapMirror.Local.PRESENT;
                }
            }
            allInMirror = inMirror;
            slotOfShard = new int[shards];
            positionInShard = new int[present.size()];
            if (allInMirror) {
                return;
            }
            int[] filled = new int[shards];
            java.util.Arrays.fill(slotOfShard, -1);
            for (int shard = 0; shard < shards; shard++) {
                if (perShard[shard] > 0) {
                    slotOfShard[shard] = shardKeys.size();
                    shardKeys.add(RedisBloomFilter.this.keys.live(shard));
                    long[] shardProbes = new long[perShard[shard] * hashes + 1];
                    shardProbes[shardProbes.length - 1] = geometry.markerOffset();
                    probes.add(shardProbes);
                }
            }
            for (int i = 0; i < present.size(); i++) {
                int shard = shardOf[i];
                positionInShard[i] = filled[shard]++;
                System.arraycopy(offsets, i * hashes, probes.get(slotOfShard[shard]), positionInShard[i] * hashes, hashes);
            }
        }

        boolean allInMirror() {
            return allInMirror;
        }

        List<Membership> allPresent() {
            List<Membership> allPresent = new ArrayList<>(keys.size());
            keys.forEach(key -> allPresent.add(Membership.PRESENT));
            return allPresent;
        }

        /** @param answers Redis's replies, one per shard key, or null when the read failed */
        List<Membership> answers(List<BitSet> answers) {
            List<Membership> result = new ArrayList<>(keys.size());
            int index = 0;
            for (Object key : keys) {
                if (key == null) {
                    result.add(Membership.PRESENT);
                    continue;
                }
                if (answers == null) {
                    result.add(Membership.UNAVAILABLE);
                    index++;
                    continue;
                }
                int slot = slotOfShard[shardOf[index]];
                BitSet set = answers.get(slot);
                if (!set.get(probes.get(slot).length - 1)) {
                    result.add(Membership.NOT_READY);
                }
                else {
                    int from = positionInShard[index] * hashes;
                    result.add(set.nextClearBit(from) >= from + hashes ? Membership.PRESENT
                            : suspended || blockingSuspended ? Membership.NOT_READY : Membership.ABSENT);
                }
                index++;
            }
            return result;
        }
    }

    /**
     * No generation can answer (see {@link FilterGenerations#answering}): looks again soon, in the
     * background, and asks for a load when the own generation was never loaded or was lost.
     */
    private void noGenerationAnswers() {
        if (generations.reconsiderDue()) {
            MIRROR_LOADER.execute(() -> {
                try {
                    generations.reconsider();
                }
                catch (RuntimeException ex) {
                    log.debug("Filter '{}': could not look at its generation again: {}", name, ex.getMessage());
                }
            });
        }
        if (generations.ownUnloaded() && notReadyListener != null) {
            try {
                notReadyListener.accept(this);
            }
            catch (RuntimeException ex) {
                log.warn("Filter '{}': not-ready listener failed: {}", name, ex.toString());
            }
        }
    }

    /**
     * Another generation's ABSENT, while this instance suspended blocking (its own query is not
     * loaded yet) when the check was sent: see {@link Probe#suspended}.
     */
    private static Membership suspendedAbsent(Membership answer, boolean suspended) {
        return answer == Membership.ABSENT && suspended ? Membership.NOT_READY : answer;
    }

    private static List<Membership> suspendedAbsent(List<Membership> answers, boolean suspended) {
        if (!suspended) {
            return answers;
        }
        List<Membership> notAbsent = new ArrayList<>(answers.size());
        for (Membership answer : answers) {
            notAbsent.add(suspendedAbsent(answer, true));
        }
        return notAbsent;
    }

    /** NOT_READY for each key, PRESENT for null ones (never checked, so never blocked). */
    private static List<Membership> notReady(Collection<?> keys) {
        List<Membership> answers = new ArrayList<>(keys.size());
        for (Object key : keys) {
            answers.add(key == null ? Membership.PRESENT : Membership.NOT_READY);
        }
        return answers;
    }

    private void notReady() {
        if (generations != null && generations.reconsiderDue()) {
            // A Redis read: never on the checking thread, whose wait is bounded by the check timeout.
            MIRROR_LOADER.execute(() -> {
                try {
                    generations.reconsider();
                }
                catch (RuntimeException ex) {
                    log.debug("Filter '{}': could not look at its generation again: {}", name, ex.getMessage());
                }
            });
        }
        if (notReadyListener != null) {
            try {
                notReadyListener.accept(this);
            }
            catch (RuntimeException ex) {
                log.warn("Filter '{}': not-ready listener failed: {}", name, ex.toString());
            }
        }
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

    /** The state of the circuit breaker in front of this filter's Redis. */
    public CircuitBreaker.State circuitState() {
        return store.circuitState();
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

    /** False only when the key is definitely absent; "cannot tell" is {@code true}. */
    public boolean mightContain(Object key) {
        return check(key) != Membership.ABSENT;
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
        try {
            return Optional.of(readyShards() == geometry.shards());
        }
        catch (BitmapStoreException ex) {
            return Optional.empty();
        }
    }

    private int readyShards() {
        List<String> shardKeys = new ArrayList<>(geometry.shards());
        List<long[]> markers = new ArrayList<>(geometry.shards());
        for (int shard = 0; shard < geometry.shards(); shard++) {
            shardKeys.add(keys.live(shard));
            markers.add(new long[] { geometry.markerOffset() });
        }
        int ready = 0;
        for (BitSet marker : store.readBitsMany(shardKeys, markers, checkTimeout)) {
            ready += marker.get(0) ? 1 : 0;
        }
        return ready;
    }

    /**
     * Adds {@code key}: it is journaled for the next swap and its bits are set, before this returns.
     *
     * @throws BitmapStoreException when Redis fails; the key may then be missing until the next load
     */
    public void add(Object key) {
        Objects.requireNonNull(key, "key");
        addAll(List.of(key));
    }

    /**
     * Adds every non-null key of {@code keys}: one round trip per shard they fall in, per chunk of
     * {@link Builder#maxBatchSize} keys. When one fails, the chunks before it stay added.
     */
    public void addAll(Collection<?> keys) {
        if (keys.size() > maxBatchSize) {
            Chunks.forEach(keys, maxBatchSize, this::addAll);
            return;
        }
        AddBatch adds = new AddBatch(keys);
        if (adds.batch.isEmpty()) {
            return;
        }
        BitmapStoreException notForgotten = forgetMissesFirst(keys);
        afterAdds(adds, store.journalAndSetBitsMany(adds.batch));
        announce(adds);
        if (generations != null) {
            generations.addToOthers(keys);
        }
        if (notForgotten != null) {
            throw notForgotten;
        }
    }

    /**
     * Applies landed adds to this instance's mirror and tells the other instances' mirrors. An
     * instance without a mirror tells them too, while some instance trusts its mirror's clear
     * bits ({@link FilterEvents#announceAddAsync}): during a rolling change that turns the mirror
     * on, or from a service that only writes, that mirror hears of these adds from nobody else.
     * Sent once the adds have landed, without waiting: another instance may still block such a
     * key from memory for the moment the event takes.
     */
    private void announce(AddBatch adds) {
        for (int i = 0; i < adds.batch.size(); i++) {
            long[] all = adds.batch.get(i).offsets();
            if (mirror != null) {
                mirror.apply(adds.shards.get(i), all, 0, all.length);
                events.publishAddAsync(adds.shards.get(i), all, all.length);
            }
            else {
                events.announceAddAsync(keys.meta(), adds.shards.get(i), all, all.length);
            }
        }
    }

    /**
     * {@link #addAll} without blocking the calling thread, for reactive callers: the future
     * completes once every key is journaled and its bits set, or with a
     * {@link BitmapStoreException} when Redis refused or did not answer.
     */
    public CompletableFuture<Void> addAllAsync(Collection<?> keys) {
        if (keys.size() > maxBatchSize) {
            return Chunks.forEachAsync(keys, maxBatchSize, this::addAllAsync);
        }
        AddBatch adds = new AddBatch(keys);
        if (adds.batch.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Throwable> forgotten = forgetOwnMissesAsync(keys).handle((done, error) -> error);
        return forgotten.thenCompose(notForgotten -> store.journalAndSetBitsManyAsync(adds.batch).thenAccept(receipts -> {
            afterAdds(adds, receipts);
            announce(adds);
        }).thenCompose(done -> generations == null ? CompletableFuture.<Void>completedFuture(null)
                : generations.addToOthersAsync(keys))
                .thenRun(() -> {
                    if (notForgotten != null) {
                        throw notForgotten instanceof CompletionException completion ? completion
                                : new CompletionException(notForgotten);
                    }
                }));
    }

    /** The journal entries and bits of a batch of adds, grouped by shard. */
    private final class AddBatch {

        final List<BitmapStore.ShardAdds> batch = new ArrayList<>();
        final List<Integer> shards = new ArrayList<>();
        /** This instance's adds confirmed before the batch was sent, per shard: Redis counted them first. */
        final long[] confirmedBefore = new long[geometry.shards()];
        final long epoch = addCounts.snapshot(confirmedBefore);

        AddBatch(Collection<?> keys) {
            int hashes = geometry.hashes();
            int shardCount = geometry.shards();
            List<List<long[]>> byShard = new ArrayList<>(shardCount);
            for (int shard = 0; shard < shardCount; shard++) {
                byShard.add(new ArrayList<>());
            }
            long[] offsets = new long[hashes];
            for (Object key : keys) {
                if (key != null) {
                    int shard = BitPositions.fillSharded(hash, canonical(key), geometry.bits(), hashes, shardCount, offsets, 0);
                    byShard.get(shard).add(offsets.clone());
                }
            }
            for (int shard = 0; shard < shardCount; shard++) {
                List<long[]> added = byShard.get(shard);
                if (added.isEmpty()) {
                    continue;
                }
                long[] all = new long[added.size() * hashes];
                List<byte[]> entries = new ArrayList<>(added.size());
                for (int i = 0; i < added.size(); i++) {
                    System.arraycopy(added.get(i), 0, all, i * hashes, hashes);
                    entries.add(PackedOffsets.pack(all, i * hashes, hashes));
                }
                batch.add(new BitmapStore.ShardAdds(RedisBloomFilter.this.keys.journal(shard), entries,
                        RedisBloomFilter.this.keys.live(shard), all, RedisBloomFilter.this.keys.addCount(shard),
                        instanceId));
                shards.add(shard);
            }
        }
    }

    /**
     * Remembers the shards' add counts (see {@link #verifyNotBehind}), and keeps the journal
     * within its capacity once an add finds it full: in the background, so the add does not
     * wait, and at most once at a time per filter.
     */
    private void afterAdds(AddBatch adds, List<BitmapStore.AddReceipt> receipts) {
        for (int i = 0; i < receipts.size(); i++) {
            long count = receipts.get(i).addCount();
            int shard = adds.shards.get(i);
            if (count < 0) {
                continue;
            }
            AddCounts.Finding finding = addCounts.afterAdd(shard, count, adds.batch.get(i).entries().size(),
                    adds.confirmedBefore[shard], adds.epoch);
            if (finding.verdict() == AddCounts.Verdict.BEHIND) {
                long epoch = rewinds.get();
                MIRROR_LOADER.execute(() -> rewound(epoch, finding.detail(), new boolean[geometry.shards()]));
            }
        }
        for (BitmapStore.AddReceipt receipt : receipts) {
            if (receipt.journalLength() > journalCapacity && maintaining.compareAndSet(false, true)) {
                MIRROR_LOADER.execute(() -> {
                    try {
                        maintainJournal();
                    }
                    catch (RuntimeException ex) {
                        log.warn("Filter '{}': could not trim the adds journal: {}", name, ex.getMessage());
                    }
                    finally {
                        maintaining.set(false);
                    }
                });
                return;
            }
        }
    }

    /**
     * Keeps each shard's adds journal within its retention and capacity (see
     * {@link BitmapStore#maintainJournal}): every add stays at least {@link Builder#journalRetention}
     * and at most about twice that. Call it periodically (the Spring starter does, every half
     * retention); adds call it by themselves once the journal is over its capacity.
     *
     * @return adds dropped beyond the capacity; the swaps of the next retention then merge the
     *         live bitmap, so that dropping them loses no key
     */
    public long maintainJournal() {
        long dropped = 0;
        for (int shard = 0; shard < geometry.shards(); shard++) {
            dropped += store.maintainJournal(keys.journalKeys(shard), journalRetention, journalCapacity);
        }
        if (dropped > 0) {
            log.warn("Filter '{}': {} adds left the journal beyond its capacity of {}; the loads of the next {} keep"
                    + " every bit of the live filter so that none is lost (raise the journal capacity if this recurs)",
                    name, dropped, journalCapacity, journalRetention);
        }
        return dropped;
    }

    /** How long the journal keeps each add; see {@link Builder#journalRetention}. */
    public Duration journalRetention() {
        return journalRetention;
    }

    /**
     * Notices Redis going back in time: a restart from an older RDB or AOF file, or a failover to
     * a replica that lagged, brings the bitmap back without the adds made since, ready marker and
     * all, and those keys would be blocked for good. Each instance counts its own adds in Redis
     * (one hash field per instance and shard, incremented with each add after its bits); counts
     * only grow, so one lower than this instance confirmed (its own) or saw (another instance's,
     * which may be gone since) means Redis lost adds. Both this call and every add of the
     * instance compare. The filter is then made not ready on every instance (the marker of each
     * shard is cleared, so every check bypasses it, and mirrors are told to drop their pages)
     * until a load swaps in a whole bitmap again: the not-ready listener schedules that load.
     * Once one instance has acted on a rewind, the others take the new counts as they are
     * (see {@link AddCounts}). Call it periodically (the Spring starter does, every
     * {@code bloom-guard.rewind-check-interval}); an instance that adds notices at its next add.
     *
     * @return true when this instance found Redis behind and made the filter not ready
     * @throws BitmapStoreException when Redis cannot be read; try again later
     */
    public synchronized boolean verifyNotBehind() {
        long epoch = rewinds.get();
        long[] confirmed = new long[geometry.shards()];
        addCounts.snapshot(confirmed); // before the read: Redis counted these first
        boolean[] handled = new boolean[confirmed.length];
        for (int shard = 0; shard < confirmed.length; shard++) {
            Map<String, String> counts = store.hashGetAll(keys.addCount(shard));
            AddCounts.Finding finding = addCounts.compare(shard, counts, confirmed[shard]);
            if (finding.verdict() == AddCounts.Verdict.HANDLED_ELSEWHERE) {
                handled[shard] = true;
                log.info("Filter '{}': another instance found Redis behind and made the filter not ready (shard {})",
                        name, shard);
                addCounts.rebaseline(shard, counts);
                if (mirror != null) {
                    mirror.clear(); // in case its swap event was missed while Redis restarted
                }
            }
            else if (finding.verdict() == AddCounts.Verdict.BEHIND) {
                return rewound(epoch, finding.detail(), handled);
            }
        }
        for (RedisBloomFilter other : otherGenerations()) {
            // An instance of the other configuration that is gone may have made adds only there.
            if (other.verifyNotBehind()) {
                return rewound(epoch, "generation " + other.keys().live() + " lost adds", handled);
            }
        }
        return false;
    }

    /** The other generations this instance writes to during a rolling change; none when unknown. */
    private List<RedisBloomFilter> otherGenerations() {
        return generations == null ? List.of() : generations.others();
    }

    /**
     * Makes the filter not ready everywhere after Redis lost adds: once per rewind, and for the
     * shards on which no other instance did so already. Redis going back in time took every
     * generation of the filter with it, so the others this instance writes to are made not
     * ready too: their instances (and this one, when it answers from one) bypass and reload them.
     *
     * @param handled per shard, whether another instance is known to have acted on it already
     *     (updated here)
     * @return whether this instance acted on the rewind
     */
    private synchronized boolean rewound(long epoch, String detail, boolean[] handled) {
        if (!rewinds.compareAndSet(epoch, epoch + 1)) {
            return false;
        }
        try {
            for (int shard = 0; shard < handled.length; shard++) {
                if (handled[shard]) {
                    continue;
                }
                Map<String, String> counts = store.hashGetAll(keys.addCount(shard));
                if (addCounts.handledElsewhere(shard, counts)) {
                    handled[shard] = true;
                    addCounts.rebaseline(shard, counts);
                }
            }
        }
        catch (BitmapStoreException ex) {
            log.warn("Filter '{}': could not read the add counts after a rewind: {}", name, ex.getMessage());
        }
        if (mirror != null) {
            mirror.clear();
        }
        if (IntStream.range(0, handled.length).allMatch(shard -> handled[shard])) {
            log.info("Filter '{}': Redis lost adds ({}); another instance already made the filter not ready",
                    name, detail);
            return false;
        }
        log.error("Filter '{}': Redis lost adds ({}): it restarted from an older snapshot or failed over to a replica"
                + " that lagged. The filter bypasses on every instance until it is loaded again", name, detail);
        try {
            for (int shard = 0; shard < handled.length; shard++) {
                if (!handled[shard]) {
                    store.clearBit(keys.live(shard), geometry.markerOffset());
                    // After the marker: an instance that sees this count grow finds the shard not ready already.
                    store.hashIncrement(keys.addCount(shard), AddCounts.REWINDS_FIELD, 1);
                    addCounts.rebaseline(shard, store.hashGetAll(keys.addCount(shard)));
                }
            }
            if (generations != null) {
                generations.invalidateOthers();
            }
            events.publishSwap();
        }
        catch (BitmapStoreException ex) {
            log.warn("Filter '{}': could not make the filter not ready after the rewind: {}", name, ex.getMessage());
        }
        notReady();
        return true;
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
    public LoadReport load(Iterator<?> source, String sourceId, boolean force) {
        try (PendingLoad pending = beginLoad()) {
            return pending.load(source, sourceId, force);
        }
    }

    /**
     * Starts a load: call it before the source takes its snapshot (before the warmup query
     * runs), then {@link PendingLoad#load} with the keys. From here on every add is journaled
     * after a mark this load leaves in each shard's journal, and the swap goes ahead only if that
     * mark is still there: if Redis lost the journal meanwhile (a flush, an eviction, a failover),
     * adds made after the snapshot may be missing from the new bitmap, so it is not swapped in.
     *
     * @throws IllegalStateException when a load of this filter is already running in this process
     */
    public PendingLoad beginLoad() {
        if (!loading.compareAndSet(false, true)) {
            throw new IllegalStateException("filter '" + name + "' is already loading");
        }
        try {
            return new PendingLoad();
        }
        catch (RuntimeException ex) {
            loading.set(false);
            if (generations != null) {
                generations.loadEnded(false);
            }
            throw ex;
        }
    }

    /**
     * A load's mark in the journals: three 4-byte offsets, as adds are packed, so that a swap of an
     * earlier release (which replays every entry as offsets, and fails on any other length) reads
     * it harmlessly: the ready marker's offset, which no add has and which the swap script of this
     * release recognises, then two random offsets below 65,536 that make the mark this load's own
     * (to an earlier release they are two set bits, that is, two possible false positives).
     */
    private byte[] journalMark() {
        return java.nio.ByteBuffer.allocate(12).putInt((int) geometry.markerOffset())
                .putShort((short) 0).putShort((short) MARKS.nextInt(1 << 16))
                .putShort((short) 0).putShort((short) MARKS.nextInt(1 << 16)).array();
    }

    /** A load begun by {@link #beginLoad}; closing it ends the load, whether or not it swapped. */
    public final class PendingLoad implements AutoCloseable {

        private final long started = System.nanoTime();
        private final byte[] mark = journalMark();
        private final String token = instanceId + "/" + UUID.randomUUID();
        private final long[] markIndexes = new long[geometry.shards()];
        /** Whether every instance wrote to this generation when the load began; see {@link FilterGenerations}. */
        private final boolean covering;
        /**
         * When this load began by Redis's clock (ms), not the loader's: which of two generations'
         * bitmaps was read from the source later, and whether it began after a generation was
         * found left unwritten ({@link FilterGenerations}).
         */
        private final long began;
        private boolean used;
        private boolean swapped;

        private PendingLoad() {
            if (generations != null) {
                FilterGenerations.LoadStart start = generations.loadBegins();
                began = start.began();
                covering = start.covering();
                generations.loadStarting(covering);
            }
            else {
                began = store.timeMillis(FilterGenerations.generationsKey(keyPrefix, name));
                covering = true;
            }
            int begun = 0;
            try {
                for (; begun < geometry.shards(); begun++) {
                    markIndexes[begun] = store.beginJournalLoad(keys.journalKeys(begun), token, mark, STAGING_EXPIRY);
                }
            }
            catch (RuntimeException ex) {
                abandon(begun);
                throw ex;
            }
        }

        /** Takes this load's hold and mark out of the first {@code shards} journals, as far as Redis lets it. */
        private void abandon(int shards) {
            try {
                for (int shard = 0; shard < shards; shard++) {
                    BitmapStore.JournalKeys journal = keys.journalKeys(shard);
                    store.deleteIfEquals(journal.loading(), token);
                    // Blanked in place, not removed: another load's replay counts positions.
                    store.listBlankIfEquals(journal.current(), markIndexes[shard], mark);
                }
            }
            catch (BitmapStoreException ex) {
                log.debug("Filter '{}': could not take an abandoned load's mark out of the journal: {}", name,
                        ex.getMessage());
            }
        }

        /**
         * Builds the bitmap from {@code source}, uploads it and swaps it in; see
         * {@link RedisBloomFilter#load(Iterator, String, boolean)}. Once per pending load.
         *
         * @throws IncompleteLoadException when Redis lost part of the load before the swap, or a
         *         newer load began meanwhile; load again
         */
        public LoadReport load(Iterator<?> source, String sourceId, boolean force) {
            if (used) {
                throw new IllegalStateException("a pending load of filter '" + name + "' loads once");
            }
            used = true;
            LoadReport report = loadBegun(source, sourceId, force, this);
            swapped = true;
            return report;
        }

        /**
         * Ends the load. One that did not swap takes its mark out of the journals, so it does not
         * count as an add, and its hold on them, so that they rotate again.
         */
        @Override
        public void close() {
            try {
                if (!swapped) {
                    abandon(geometry.shards());
                }
            }
            finally {
                loading.set(false);
                if (generations != null) {
                    generations.loadEnded(swapped && covering && !generations.ownInvalidatedSince(began));
                }
            }
        }

        private BitmapStore.Staging staging(String key, long length, long population, int shard) {
            return new BitmapStore.Staging(key, length, population, token, mark, markIndexes[shard]);
        }
    }

    private LoadReport loadBegun(Iterator<?> source, String sourceId, boolean force, PendingLoad pending) {
        long started = pending.started;
        int shards = geometry.shards();
        String[] staging = new String[shards];
        long[] lengths = new long[shards];
        long[] populations = new long[shards];
        try {
            BitmapBuilder[] bitmaps = new BitmapBuilder[shards];
            for (int shard = 0; shard < shards; shard++) {
                bitmaps[shard] = BitmapBuilder.forGeometry(geometry);
            }
            long count = readInto(bitmaps, source);
            if (!force) {
                refuseShrink(count);
            }
            for (int shard = 0; shard < shards; shard++) {
                bitmaps[shard].markComplete();
                staging[shard] = keys.newStaging(shard);
                byte[] bitmap = bitmaps[shard].bytes();
                lengths[shard] = bitmap.length;
                populations[shard] = bitmaps[shard].bitCount() + 1; // and the marker
                store.writeBitmap(staging[shard], bitmap, STAGING_EXPIRY);
                bitmaps[shard] = null;
            }
            Duration duration = Duration.ofNanos(System.nanoTime() - started);
            Instant finished = Instant.now();
            Map<String, String> meta = new LinkedHashMap<>();
            meta.put("loadedAt", Long.toString(finished.toEpochMilli()));
            meta.put("keys", Long.toString(count));
            meta.put("loadedBy", instanceId);
            meta.put("durationMs", Long.toString(duration.toMillis()));
            if (sourceId != null) {
                meta.put("source", sourceId);
            }
            boolean covering = pending.covering
                    && (generations == null || !generations.ownInvalidatedSince(pending.began));
            meta.put("covered", covering ? "1" : "0");
            meta.put(FilterGenerations.LOAD_BEGAN, Long.toString(pending.began));
            long replayed = 0;
            for (int shard = shards - 1; shard >= 0; shard--) {
                replayed += replayAndSwap(pending.staging(staging[shard], lengths[shard], populations[shard], shard),
                        shard, shard == 0 ? meta : Map.of());
                staging[shard] = null;
            }
            try {
                maintainJournal();
            }
            catch (BitmapStoreException ex) {
                log.debug("Filter '{}': could not rotate the adds journal after the swap: {}", name, ex.getMessage());
            }
            if (misses != null) {
                misses.clear();
            }
            if (mirror != null) {
                mirror.clear();
            }
            // From an instance without a mirror too: others' mirrors must not go on trusting the old bitmap.
            try {
                events.publishSwap();
            }
            catch (BitmapStoreException ex) {
                log.warn("Filter '{}': could not tell other mirrors about the swap ({}); they catch up within their"
                        + " local-mirror.refresh-after", name, ex.getMessage());
            }
            LoadReport report = new LoadReport(name, count, replayed,
                    Duration.ofNanos(System.nanoTime() - started), finished);
            lastLoad = report;
            if (warnIfOverCapacity(count, populations) && resizePolicy != null) {
                resize(count);
            }
            return report;
        }
        catch (RuntimeException ex) {
            for (String key : staging) {
                if (key != null) {
                    discard(key);
                }
            }
            throw ex;
        }
    }

    /**
     * Replays the shard's journal onto the staging key in bounded steps, each one short script
     * (so Redis serves other clients between them, whatever the journal's length), then swaps
     * it in with one script that replays only what arrived during the steps.
     *
     * @return the adds replayed
     */
    private long replayAndSwap(BitmapStore.Staging staging, int shard, Map<String, String> meta) {
        BitmapStore.JournalKeys journal = keys.journalKeys(shard);
        int step = Math.max(1, REPLAY_OFFSETS_PER_STEP / geometry.hashes());
        long replayed = 0;
        boolean verifyUpload = true;
        long tail = 0;
        for (String list : List.of(journal.previous(), journal.current())) {
            long start = 0;
            while (true) {
                long[] done = store.replayJournal(staging, journal, list, start, step, verifyUpload);
                verifyUpload = false;
                refuseIncomplete(done[0], shard);
                replayed += done[1];
                start += done[0];
                if (done[0] < step) {
                    break;
                }
            }
            tail = start;
        }
        long last = store.swapIn(staging, keys.live(shard), journal, tail, keys.meta(shard), meta);
        refuseIncomplete(last, shard);
        return replayed + last;
    }

    private void refuseIncomplete(long answer, int shard) {
        if (answer == BitmapStore.STAGING_ALTERED) {
            throw new IncompleteLoadException("the staging bitmap of filter '" + name + "' shard " + shard
                    + " is not the one uploaded: Redis lost it during the load; the live filter is kept");
        }
        if (answer == BitmapStore.JOURNAL_LOST) {
            throw new IncompleteLoadException("the adds journal of filter '" + name + "' shard " + shard
                    + " lost this load's mark (Redis was flushed, evicted it or failed over, or more than"
                    + " the journal capacity of adds arrived): adds made during the load may be missing;"
                    + " the live filter is kept");
        }
        if (answer == BitmapStore.SUPERSEDED) {
            throw new IncompleteLoadException("a newer load of filter '" + name + "' shard " + shard
                    + " began during this one (this instance lost the load lock, or loaded without it):"
                    + " the newer load swaps, this one does not");
        }
    }

    /**
     * Refuses a load of {@code count} keys that is more than {@code maxShrink} smaller than the
     * live filter: its last load's keys plus the adds journaled since. Without a recorded live
     * load (a first load, or Redis lost the metadata) there is nothing to compare with: an empty
     * table is a real state for a new application, and adds fill the filter from there.
     */
    private void refuseShrink(long count) {
        String recorded = store.hashGetAll(keys.meta()).get("keys");
        if (recorded == null) {
            return;
        }
        // The last load's own count only: the journal holds one entry per add call (an update saved
        // again, a catch-up re-adding rows), so counting it would refuse loads of a table that did not shrink.
        long live = Long.parseLong(recorded);
        if (count < live * (1.0 - maxShrink)) {
            throw new LoadRefusedException(name, count, live, maxShrink);
        }
    }

    /**
     * Takes the cross-instance load lock, so that one instance at a time warms or rebuilds the
     * filter. The lease renews the lock every third of {@code ttl} on {@code renewals} until it
     * is closed; a crashed holder's lock expires after {@code ttl}.
     *
     * @return the lease, or empty when another instance holds the lock
     */
    public Optional<LoadLease> tryLockForLoad(Duration ttl, ScheduledExecutorService renewals) {
        if (!store.setIfAbsent(keys.lock(), instanceId, ttl)) {
            return Optional.empty();
        }
        long period = Math.max(1, ttl.toMillis() / 3);
        ScheduledFuture<?> renewal;
        try {
            renewal = renewals.scheduleAtFixedRate(() -> {
                try {
                    if (!store.expireIfEquals(keys.lock(), instanceId, ttl)) {
                        log.warn("Filter '{}': lost the load lock while loading", name);
                    }
                }
                catch (RuntimeException ex) {
                    log.warn("Filter '{}': could not renew the load lock: {}", name, ex.getMessage());
                }
            }, period, period, TimeUnit.MILLISECONDS);
        }
        catch (RuntimeException ex) {
            store.deleteIfEquals(keys.lock(), instanceId);
            throw ex;
        }
        return Optional.of(new LoadLease(renewal, ttl));
    }

    /** A held load lock; closing it stops the renewals and releases the lock if still ours. */
    public final class LoadLease implements AutoCloseable {

        private final ScheduledFuture<?> renewal;
        private final Duration ttl;

        private LoadLease(ScheduledFuture<?> renewal, Duration ttl) {
            this.renewal = renewal;
            this.ttl = ttl;
        }

        @Override
        public void close() {
            renewal.cancel(false);
            try {
                store.deleteIfEquals(keys.lock(), instanceId);
            }
            catch (RuntimeException ex) {
                log.warn("Filter '{}': could not release the load lock ({}); it expires within {}", name,
                        ex.getMessage(), ttl);
            }
        }
    }

    /** The instance holding the load lock, if any. */
    public Optional<String> lockHolder() {
        return store.get(keys.lock());
    }

    /** The source the live bitmap was loaded from, as given to {@link #load(Iterator, String)}, if recorded. */
    public Optional<String> liveSourceId() {
        return Optional.ofNullable(store.hashGetAll(keys.meta()).get("source"));
    }

    /** When the live bitmap was swapped in (by any instance), if the metadata says. */
    public Optional<Instant> liveSince() {
        String loadedAt = store.hashGetAll(keys.meta()).get("loadedAt");
        return loadedAt == null ? Optional.empty() : Optional.of(Instant.ofEpochMilli(Long.parseLong(loadedAt)));
    }

    /**
     * When the load that produced the live bitmap began, before it read its source (by the
     * loading instance's clock), if the metadata says.
     */
    public Optional<Instant> liveLoadStarted() {
        Map<String, String> meta = store.hashGetAll(keys.meta());
        String loadedAt = meta.get("loadedAt");
        String duration = meta.get("durationMs");
        return loadedAt == null || duration == null ? Optional.empty()
                : Optional.of(Instant.ofEpochMilli(Long.parseLong(loadedAt) - Long.parseLong(duration)));
    }

    /**
     * Once per load, not per check: a filter holding more keys than it was sized for answers
     * "maybe present" for more absent keys than configured, so it shields the database less.
     * The fill is the one just built in memory (each shard's population counts its marker).
     */
    private boolean warnIfOverCapacity(long count, long[] populations) {
        long setBits = 0;
        for (long population : populations) {
            setBits += population - 1;
        }
        double estimatedFpp = Math.pow((double) setBits / geometry.totalBits(), geometry.hashes());
        if (FilterStatus.overCapacity(geometry, count, estimatedFpp)) {
            log.warn("Filter '{}' was loaded with {} keys for expected-insertions {} (estimated fpp {}, configured {}):"
                    + " it lets more absent keys through than configured; raise its expected-insertions", name, count,
                    geometry.expectedInsertions(), String.format(java.util.Locale.ROOT, "%.4g", estimatedFpp),
                    geometry.fpp());
            return true;
        }
        return false;
    }

    /**
     * Auto-resize, after a load found the filter over capacity: records in Redis the larger
     * generation it grows into, unless one is recorded already (which every instance then
     * adopts, whatever its own count). Nothing switches here: {@link FilterGenerations} writes to
     * the grown generation, has it loaded once a load covers every instance, and then answers from it.
     */
    private void resize(long count) {
        Optional<FilterGeometry> grown = resizePolicy.grow(geometry, count);
        if (grown.isEmpty()) {
            log.warn("Filter '{}' cannot be resized beyond expected-insertions {}: twice that exceeds"
                    + " bloom-guard.max-filter-size ({} bytes); raise it, or the shard limit, to let auto-resize grow it",
                    name, geometry.expectedInsertions(), resizePolicy.maxFilterBytes());
            return;
        }
        String from = FilterGenerations.descriptor(this);
        String to = FilterGenerations.descriptor(grown.get(), keyType, hash.id());
        try {
            String decided = FilterResize.decide(store, keyPrefix, name, from, to);
            if (decided.equals(to)) {
                log.warn("Filter '{}': auto-resize grows it from expected-insertions {} to {} ({} shards, {} bytes) for"
                        + " the {} keys loaded; every instance writes to the larger generation, which is loaded and"
                        + " answers once every instance has written to it for the journal's retention",
                        name, geometry.expectedInsertions(), grown.get().expectedInsertions(), grown.get().shards(),
                        grown.get().totalByteSize(), count);
            }
            else {
                log.info("Filter '{}': auto-resize already decided to grow it into {}", name, decided);
            }
        }
        catch (RuntimeException ex) {
            log.warn("Filter '{}': could not record its resize in Redis ({}); the next load that finds it over capacity"
                    + " tries again", name, ex.getMessage());
        }
    }

    /**
     * Reads the filter's state from Redis: a {@code BITCOUNT} over the whole bitmap plus a few
     * small reads. For operators; never on a request path.
     */
    public FilterStatus status() {
        Optional<RedisBloomFilter> resized = generations == null ? Optional.empty() : generations.answeringResized();
        if (resized.isPresent()) {
            // The generation that answers is the filter as it is now; lastLoad stays this one's own.
            FilterStatus grown = resized.get().status();
            return new FilterStatus(name, grown.geometry(), grown.key(), grown.state(), grown.bitCount(),
                    grown.fillRatio(), grown.estimatedFpp(), grown.approximateCount(), grown.liveSince(),
                    grown.liveKeys(), grown.loadedBy(), grown.lockHolder(), lastLoad(),
                    Optional.of(resizedFrom == null ? geometry : resizedFrom));
        }
        long bitCount = -1;
        Map<String, String> meta = Map.of();
        Optional<String> holder = Optional.empty();
        boolean ready = false;
        try {
            int readyShards = readyShards();
            ready = readyShards == geometry.shards();
            long total = 0;
            for (int shard = 0; shard < geometry.shards(); shard++) {
                total += store.bitCount(keys.live(shard));
            }
            bitCount = total - readyShards;
            meta = store.hashGetAll(keys.meta());
            holder = store.get(keys.lock());
        }
        catch (BitmapStoreException ex) {
            log.debug("Filter '{}': status unreadable: {}", name, ex.getMessage());
        }
        FilterState state = ready ? FilterState.READY
                : loading.get() || holder.isPresent() ? FilterState.WARMING : FilterState.DEGRADED;
        double fill = bitCount < 0 ? -1 : (double) bitCount / geometry.totalBits();
        String loadedAt = meta.get("loadedAt");
        String liveKeys = meta.get("keys");
        return new FilterStatus(name, geometry, keys.live(), state, bitCount, fill,
                fill < 0 ? -1 : Math.pow(fill, geometry.hashes()), FilterStatus.approximateCount(bitCount, geometry),
                Optional.ofNullable(loadedAt).map(value -> Instant.ofEpochMilli(Long.parseLong(value))),
                liveKeys == null ? -1 : Long.parseLong(liveKeys), Optional.ofNullable(meta.get("loadedBy")), holder,
                lastLoad(), Optional.ofNullable(resizedFrom));
    }

    /**
     * Reads the source on the calling thread and hashes on another, so that a warmup costs
     * about the longer of the two rather than their sum: reading a JDBC cursor waits on the
     * database, hashing waits on nothing. Keys travel in batches; one thread writes the bitmap.
     */
    private long readInto(BitmapBuilder[] bitmaps, Iterator<?> source) {
        BlockingQueue<Object[]> batches = new ArrayBlockingQueue<>(8);
        AtomicReference<Throwable> hashingFailure = new AtomicReference<>();
        Thread hasher = new Thread(() -> {
            int hashes = geometry.hashes();
            int shards = geometry.shards();
            long bits = geometry.bits();
            long[] offsets = new long[hashes];
            try {
                while (true) {
                    Object[] batch = batches.take();
                    if (batch.length == 0) {
                        return;
                    }
                    for (Object key : batch) {
                        if (key == null) {
                            break;
                        }
                        int shard = BitPositions.fillSharded(hash, canonical(key), bits, hashes, shards, offsets, 0);
                        bitmaps[shard].setAll(offsets, 0, hashes);
                    }
                }
            }
            catch (Throwable ex) {
                hashingFailure.set(ex);
                batches.clear();
            }
        }, "bloomguard-hash-" + name);
        hasher.setDaemon(true);
        hasher.start();
        long count = 0;
        try {
            Object[] batch = new Object[LOAD_BATCH];
            int size = 0;
            while (source.hasNext()) {
                Object key = source.next();
                if (key != null) {
                    batch[size++] = key;
                    count++;
                    if (size == LOAD_BATCH) {
                        hand(batches, batch, hashingFailure);
                        batch = new Object[LOAD_BATCH];
                        size = 0;
                    }
                }
            }
            if (size > 0) {
                hand(batches, batch, hashingFailure);
            }
            hand(batches, new Object[0], hashingFailure);
            hasher.join();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while loading filter '" + name + "'", ex);
        }
        finally {
            if (hasher.isAlive()) {
                hasher.interrupt();
            }
        }
        if (hashingFailure.get() != null) {
            throw new IllegalStateException("hashing keys of filter '" + name + "' failed: " + hashingFailure.get(),
                    hashingFailure.get());
        }
        return count;
    }

    private static void hand(BlockingQueue<Object[]> batches, Object[] batch, AtomicReference<Throwable> failure)
            throws InterruptedException {
        while (!batches.offer(batch, 100, TimeUnit.MILLISECONDS)) {
            if (failure.get() != null) {
                throw new IllegalStateException("hashing keys failed: " + failure.get(), failure.get());
            }
        }
    }

    private void discard(String staging) {
        try {
            store.delete(staging);
        }
        catch (RuntimeException ex) {
            log.warn("Filter '{}': could not delete staging key {} ({}); it expires by itself", name, staging,
                    ex.getMessage());
        }
    }

    public boolean isLoading() {
        return loading.get();
    }

    /** The last load this instance completed, if any. */
    public Optional<LoadReport> lastLoad() {
        return Optional.ofNullable(lastLoad);
    }

    @Override
    public String toString() {
        return "RedisBloomFilter[" + name + ", " + geometry + ", " + hash + ", key=" + keys.live() + "]";
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

        public RedisBloomFilter build() {
            return new RedisBloomFilter(this);
        }

        private static String defaultInstanceId() {
            return ManagementFactory.getRuntimeMXBean().getName() + ":" + UUID.randomUUID().toString().substring(0, 8);
        }
    }
}
