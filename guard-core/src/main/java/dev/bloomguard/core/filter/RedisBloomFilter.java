package dev.bloomguard.core.filter;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.FilterKeys;
import dev.bloomguard.core.FilterStatus;
import dev.bloomguard.core.Hold;
import dev.bloomguard.core.IncompleteLoadException;
import dev.bloomguard.core.LoadReport;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.context.FilterContext;
import dev.bloomguard.core.hash.KeyHash;
import dev.bloomguard.core.hash.KeyType;
import dev.bloomguard.core.load.BulkLoad;
import dev.bloomguard.core.load.CatchUpTurn;
import dev.bloomguard.core.load.LiveMeta;
import dev.bloomguard.core.load.LoadLock;
import dev.bloomguard.core.load.RebuildTurn;
import dev.bloomguard.core.mirror.MirrorStats;
import dev.bloomguard.core.misses.RememberedMisses;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.CircuitBreaker;
import dev.bloomguard.core.rollout.FilterGenerations;

/**
 * A Bloom filter kept as a Redis bitmap: the programmatic API, usable without Spring. What a guard
 * uses of it is {@link FilterGuard} (checks, adds); what an operator uses, {@link FilterOperations}
 * (loads, the lock, status). Each method's contract is described there, once.
 *
 * <p>A check is one {@code BITFIELD_RO} that reads the key's k bits and the ready marker together.
 * Only a complete filter (marker set) that has a clear bit answers {@link Membership#ABSENT}; a
 * missing, half-written or unreachable one answers {@link Membership#NOT_READY} or
 * {@link Membership#UNAVAILABLE}, and callers let those through. Every add, on any instance, is
 * journaled before its bits are set, so that a load's swap never drops a key added while it ran.
 *
 * <p>This class is a façade over its generations' parts ({@link FilterParts}, one package each:
 * {@code check}, {@code write}, {@code load}, {@code status}, {@code events}, {@code mirror} and
 * {@code misses}): its own generation's, and during a rolling change ({@link FilterGenerations})
 * the other generations', which are parts of this filter and not filters of their own.
 * {@link GenerationRouting} sends each call to the generation that answers and chunks large
 * batches. Its settings are {@link FilterSetup}'s. See {@code docs/architecture.md}.
 *
 * <p>Size (over 300 lines): its length is one-line delegations to the parts for each method of its
 * two interfaces ({@link FilterGuard}, {@link FilterOperations}) and the public nested types of a
 * load; no logic lives here, so there is no seam to split it along that would not split one
 * public type in two.
 */
public final class RedisBloomFilter implements FilterGuard, FilterOperations, AutoCloseable {

    private final FilterContext filter;
    private final FilterParts parts;
    private final GenerationRouting routing;

    private RedisBloomFilter(Builder builder) {
        this.filter = FilterParts.context(builder);
        this.parts = new FilterParts(builder, filter, this);
        this.routing = new GenerationRouting(this, parts);
        parts.start(builder, this);
    }

    public static Builder builder(String name, FilterGeometry geometry, BitmapStore store) {
        return new Builder(name, geometry, store);
    }

    /** Stops listening for other instances' adds and the circuit; the filter keeps working without them. */
    @Override
    public void close() {
        parts.close();
    }

    @Override
    public String name() {
        return parts.name();
    }

    @Override
    public FilterGeometry geometry() {
        return parts.geometry();
    }

    @Override
    public FilterKeys keys() {
        return parts.keys();
    }

    @Override
    public Optional<KeyType> keyType() {
        return parts.keyType();
    }

    @Override
    public KeyHash hash() {
        return parts.hash();
    }

    @Override
    public String instanceId() {
        return filter.instanceId();
    }

    @Override
    public Optional<FilterGenerations<?>> generations() {
        return Optional.ofNullable(parts.generations);
    }

    @Override
    public Membership check(Object key) {
        return routing.check(key);
    }

    @Override
    public CompletableFuture<Membership> checkAsync(Object key) {
        return routing.checkAsync(key);
    }

    @Override
    public List<Membership> checkAll(Collection<?> keys) {
        return routing.checkAll(keys);
    }

    @Override
    public CompletableFuture<List<Membership>> checkAllAsync(Collection<?> keys) {
        return routing.checkAllAsync(keys);
    }

    @Override
    public void hold(Hold reason) {
        parts.hold(reason);
    }

    @Override
    public void release(Hold reason) {
        parts.release(reason);
    }

    @Override
    public Set<Hold> holds() {
        return parts.holds.held();
    }

    @Override
    public boolean isAnsweringSuspended() {
        return routing.isAnsweringSuspended();
    }

    @Override
    public CircuitBreaker.State circuitState() {
        return filter.store().circuitState();
    }

    @Override
    public Optional<Boolean> isComplete() {
        return parts.isComplete();
    }

    @Override
    public void addAll(Collection<?> keys) {
        routing.addAll(keys);
    }

    @Override
    public CompletableFuture<Void> addAllAsync(Collection<?> keys) {
        return routing.addAllAsync(keys);
    }

    @Override
    public CompletableFuture<Void> forgetMissesAsync(Collection<?> added) {
        return routing.forgetMissesAsync(added);
    }

    @Override
    public Optional<RememberedMisses> rememberedMisses() {
        return Optional.ofNullable(parts.misses);
    }

    @Override
    public CompletableFuture<Boolean> isRememberedMissAsync(Object key, String scope) {
        return routing.isRememberedMissAsync(key, scope);
    }

    @Override
    public CompletableFuture<Boolean> rememberMissAsync(Object key, String scope, long checkStartedNanos) {
        return routing.rememberMissAsync(key, scope, checkStartedNanos);
    }

    @Override
    public Optional<MirrorStats> mirrorStats() {
        return parts.mirror == null ? Optional.empty() : Optional.of(parts.mirror.stats());
    }

    @Override
    public long maintainJournal() {
        return parts.journal.maintain();
    }

    @Override
    public Duration journalRetention() {
        return parts.journalRetention();
    }

    @Override
    public boolean verifyNotBehind() {
        return parts.verifyNotBehind();
    }

    @Override
    public PendingLoad beginLoad() {
        return new PendingLoad(parts.loader.begin());
    }

    @Override
    public Optional<LoadLease> tryLockForLoad(Duration ttl, ScheduledExecutorService renewals) {
        return parts.lock.tryLock(ttl, renewals).map(LoadLease::new);
    }

    @Override
    public Optional<String> lockHolder() {
        return parts.lock.holder();
    }

    @Override
    public Optional<String> liveSourceId() {
        return LiveMeta.read(filter).source();
    }

    @Override
    public Optional<Instant> liveSince() {
        return LiveMeta.read(filter).loadedAt();
    }

    @Override
    public Optional<Instant> liveSourceTime() {
        return LiveMeta.read(filter).sourceTime();
    }

    @Override
    public Optional<CatchUpTurn> tryCatchUpTurn(String sourceId, Duration interval) {
        return parts.loader.tryCatchUpTurn(sourceId, interval);
    }

    @Override
    public Optional<RebuildTurn> tryRebuildTurn(Duration cooldown) {
        return parts.loader.tryRebuildTurn(cooldown);
    }

    @Override
    public FilterStatus status() {
        return routing.status();
    }

    @Override
    public boolean isLoading() {
        return parts.loader.isLoading();
    }

    @Override
    public Optional<LoadReport> lastLoad() {
        return parts.loader.lastLoad();
    }

    @Override
    public String toString() {
        return "RedisBloomFilter[" + filter.name() + ", " + filter.geometry() + ", " + filter.hash() + ", key="
                + filter.keys().live() + "]";
    }

    /** A load begun by {@link #beginLoad}; closing it ends the load, whether or not it swapped. */
    public static final class PendingLoad implements AutoCloseable {

        private final BulkLoad load;

        PendingLoad(BulkLoad load) {
            this.load = load;
        }

        /**
         * Builds the bitmap from {@code source}, uploads it and swaps it in; see
         * {@link RedisBloomFilter#load(Iterator, String, boolean)}. Once per pending load.
         * {@code sourceTime}, if known: the source's own clock (the database's) before it took its
         * snapshot, where a catch-up of rows written since begins ({@link RedisBloomFilter#liveSourceTime}).
         *
         * @throws IncompleteLoadException when Redis lost part of the load before the swap, or a
         *         newer load began meanwhile; load again
         */
        public LoadReport load(Iterator<?> source, String sourceId, Instant sourceTime, boolean force) {
            return load.load(source, sourceId, sourceTime, force);
        }

        @Override
        public void close() {
            load.close();
        }
    }

    /** A held load lock; closing it stops the renewals and releases the lock if still ours. */
    public static final class LoadLease implements AutoCloseable {

        private final LoadLock.Lease lease;

        LoadLease(LoadLock.Lease lease) {
            this.lease = lease;
        }

        @Override
        public void close() {
            lease.close();
        }
    }

    /** Builds a {@link RedisBloomFilter}: the settings, each with its default, are {@link FilterSetup}'s. */
    public static final class Builder extends FilterSetup {

        private Builder(String name, FilterGeometry geometry, BitmapStore store) {
            super(name, geometry, store);
        }

        public RedisBloomFilter build() {
            return new RedisBloomFilter(this);
        }
    }
}
