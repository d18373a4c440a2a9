package dev.bloomguard.core.filter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

import org.slf4j.LoggerFactory;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.FilterKeys;
import dev.bloomguard.core.Hold;
import dev.bloomguard.core.NotReadyCause;
import dev.bloomguard.core.check.FilterChecks;
import dev.bloomguard.core.check.Holds;
import dev.bloomguard.core.check.NotReadySignals;
import dev.bloomguard.core.context.FilterContext;
import dev.bloomguard.core.events.FilterEvents;
import dev.bloomguard.core.hash.KeyHash;
import dev.bloomguard.core.hash.KeyType;
import dev.bloomguard.core.load.FilterLoader;
import dev.bloomguard.core.load.LoadLock;
import dev.bloomguard.core.mirror.BitmapMirror;
import dev.bloomguard.core.mirror.TrustLease;
import dev.bloomguard.core.misses.RememberedMisses;
import dev.bloomguard.core.redis.CircuitBreaker;
import dev.bloomguard.core.rollout.FilterGenerations;
import dev.bloomguard.core.rollout.Generation;
import dev.bloomguard.core.status.StatusReader;
import dev.bloomguard.core.write.FilterWrites;
import dev.bloomguard.core.write.JournalUpkeep;
import dev.bloomguard.core.write.RewindWatch;

/**
 * The parts of one generation of a filter, wired together once from its {@link FilterSetup}: the
 * one place that knows which part hears which. The façade ({@link RedisBloomFilter}) holds its own
 * generation's parts and routes to them; during a rolling change the filter's other generations
 * (another geometry, key type or hash, met in the registry) are parts of the same filter, built
 * here without a façade, listeners, mirror or rollout of their own: a generation is not a filter.
 * The logger is the façade's (see {@link FilterContext#log}).
 *
 * <p>What the rollout sees of a generation is {@link Generation}; a generation auto-resize grew
 * the filter into is handed to the caller to load as a {@link GrownGeneration}.
 */
final class FilterParts implements Generation {

    final FilterContext filter;
    final int maxBatchSize;
    final BitmapMirror mirror;
    final RememberedMisses misses;
    /** With a mirror that trusts its clear bits: what keeps them trustworthy. */
    final TrustLease trust;
    /** The filter's rolling change, on its own generation's parts only; null on the others' and without a rollout. */
    final FilterGenerations<FilterParts> generations;
    /** Adds, swaps and remembered misses, told to and heard from other instances. */
    final FilterEvents events;
    final NotReadySignals signals;
    final FilterChecks checks;
    final FilterWrites writes;
    final JournalUpkeep journal;
    final RewindWatch rewinds;
    final FilterLoader loader;
    final LoadLock lock;
    final StatusReader status;
    /** Tells the builder's listeners of this generation's events. */
    final EventPublisher publisher;
    /** Every reason this generation has, on this instance, not to block: read when a check is sent and when its reply is read. */
    final Holds holds = new Holds();
    /** The store's circuit transitions, told as {@link FilterEvent.CircuitChanged}; null without listeners. */
    private CircuitBreaker.Subscription circuit;

    /** What every part shares; made first, since the rollout's parts read the façade's identity as they are built. */
    static FilterContext context(FilterSetup setup) {
        FilterKeys keys = FilterKeys.of(setup.keyPrefix, setup.name, setup.geometry, setup.keyType, setup.hash.id());
        return new FilterContext(setup.name, setup.geometry, setup.keyType, setup.hash, keys, setup.store,
                setup.checkTimeout, setup.instanceId, setup.background,
                LoggerFactory.getLogger(RedisBloomFilter.class));
    }

    /**
     * @param facade answers {@code name()}, {@code keys()} and the rest of its identity from {@code filter}
     *     already; null for another generation of the filter (see {@link #ofGeneration})
     */
    FilterParts(FilterSetup setup, FilterContext filter, RedisBloomFilter facade) {
        String name = setup.name;
        Executor background = setup.background;
        FilterKeys keys = filter.keys();
        this.filter = filter;
        this.maxBatchSize = setup.maxBatchSize;
        this.events = FilterEvents.of(name, keys.events(), setup.store);
        // A mirror that blocks on its clear bits must hear every add: see TrustLease.
        BitmapMirror[] mirrored = new BitmapMirror[1];
        this.trust = setup.mirror == null || !setup.mirror.trustAbsent() ? null
                : new TrustLease(name, keys.meta(), events, setup.instanceId, setup.geometry.shards(),
                        shard -> setup.store.hashGetAll(keys.addCount(shard)), () -> mirrored[0].clear());
        this.mirror = setup.mirror == null ? null
                : new BitmapMirror(name, keys::live, setup.geometry, setup.store, setup.mirror,
                        trust == null ? events::hearing : trust::trusts, background);
        mirrored[0] = mirror;
        this.misses = setup.misses == null ? null
                : new RememberedMisses(name, keys, key -> filter.place(key, new long[setup.geometry.hashes()], 0),
                        setup.store, setup.misses, setup.checkTimeout, events);
        NotReadySignals[] signalled = new NotReadySignals[1];
        this.generations = setup.rolloutHeartbeat == null || facade == null ? null
                : new FilterGenerations<>(this, setup.store, setup.keyPrefix, setup.instanceId,
                        setup.rolloutHeartbeat, setup.rolloutGrace, OtherGenerations.of(setup),
                        () -> background.execute(() -> signalled[0].notReady(NotReadyCause.GENERATION_UNLOADED)));
        this.publisher = new EventPublisher(filter, listeners(setup, facade));
        this.signals = new NotReadySignals(filter, generations,
                cause -> publisher.publish(new FilterEvent.NotReady(facade, cause)));
        signalled[0] = signals;
        this.checks = new FilterChecks(filter, mirror, holds, signals::notReady);
        this.journal = new JournalUpkeep(filter, setup.journalRetention, setup.journalCapacity);
        this.rewinds = new RewindWatch(filter, mirror, events, generations, holds,
                () -> signals.notReady(NotReadyCause.REDIS_REWOUND));
        this.writes = new FilterWrites(filter, mirror, misses, events, rewinds, journal);
        this.loader = new FilterLoader(filter, setup.keyPrefix, generations, events, mirror, misses, setup.maxShrink,
                setup.loadHold, journal, setup.resizePolicy, report -> publisher.publish(new FilterEvent.Loaded(facade, report)));
        this.lock = new LoadLock(filter);
        this.status = new StatusReader(filter, checks, loader, lock, setup.resizedFrom);
    }

    /** The parts of another generation of a filter, from that generation's settings; started. */
    static FilterParts ofGeneration(FilterSetup setup) {
        FilterParts parts = new FilterParts(setup, context(setup), null);
        parts.start(setup, null);
        return parts;
    }

    /** The builder's listeners, and its not-ready listener as one of them; none for another generation. */
    private static List<FilterListener> listeners(FilterSetup setup, RedisBloomFilter facade) {
        if (facade == null) {
            return List.of();
        }
        List<FilterListener> listeners = new ArrayList<>(setup.listeners);
        Consumer<RedisBloomFilter> notReady = setup.notReadyListener;
        if (notReady != null) {
            listeners.add(event -> {
                if (event instanceof FilterEvent.NotReady) {
                    notReady.accept(facade);
                }
            });
        }
        return listeners;
    }

    /** Starts what listens: the circuit, the resize hook, other instances' events, the mirror's trust. */
    void start(FilterSetup setup, RedisBloomFilter facade) {
        if (generations != null && setup.resizedLoadListener != null) {
            Consumer<GrownGeneration> listener = setup.resizedLoadListener;
            generations.onResizedToLoad(resized -> filter.background()
                    .execute(() -> listener.accept(new GrownGeneration(facade, resized))));
        }
        if (mirror != null || misses != null && misses.settings().shared()) {
            events.listen(new PeerEvents(filter.geometry().shards(), mirror, misses, trust), filter.background());
        }
        if (trust != null) {
            trust.start();
        }
        if (facade != null && !setup.listeners.isEmpty()) {
            // Only then: the generations a rolling change meets have none, and are never closed.
            // Last: a start that fails above leaves the store holding nothing of this filter.
            circuit = setup.store.onCircuitTransition(
                    (from, to) -> publisher.publish(new FilterEvent.CircuitChanged(facade, from, to)));
        }
    }

    /** Stops listening for other instances' adds and the circuit; the filter keeps working without them. */
    @Override
    public void close() {
        if (circuit != null) {
            circuit.close();
        }
        if (trust != null) {
            trust.close();
        }
        events.close();
    }

    @Override
    public String name() {
        return filter.name();
    }

    @Override
    public FilterGeometry geometry() {
        return filter.geometry();
    }

    @Override
    public FilterKeys keys() {
        return filter.keys();
    }

    @Override
    public Optional<KeyType> keyType() {
        return Optional.ofNullable(filter.keyType());
    }

    @Override
    public KeyHash hash() {
        return filter.hash();
    }

    @Override
    public Duration journalRetention() {
        return journal.retention();
    }

    @Override
    public Optional<Boolean> isComplete() {
        return checks.isComplete();
    }

    /** Adds to this generation alone, in chunks; the façade's routing adds to the others. */
    @Override
    public void addAll(Collection<?> keys) {
        if (keys.size() > maxBatchSize) {
            Chunks.forEach(keys, maxBatchSize, this::addAll);
            return;
        }
        writes.addAll(keys, () -> { });
    }

    /** {@link #addAll} without blocking the calling thread. */
    @Override
    public CompletableFuture<Void> addAllAsync(Collection<?> keys) {
        if (keys.size() > maxBatchSize) {
            return Chunks.forEachAsync(keys, maxBatchSize, this::addAllAsync);
        }
        return writes.addAllAsync(keys, () -> CompletableFuture.completedFuture(null));
    }

    @Override
    public void hold(Hold reason) {
        holds.hold(reason);
    }

    @Override
    public void release(Hold reason) {
        if (reason == Hold.FOREIGN_SOURCE && mirror != null && holds.held().contains(reason)) {
            // First: its pages may have been read from the other source's bitmap, before the swap
            // event that would have dropped them reached this instance.
            mirror.clear();
        }
        holds.release(reason);
    }

    @Override
    public boolean verifyNotBehind() {
        return rewinds.verifyNotBehind();
    }

    @Override
    public String toString() {
        return "generation " + filter.keys().live() + " of filter '" + filter.name() + "'";
    }
}
