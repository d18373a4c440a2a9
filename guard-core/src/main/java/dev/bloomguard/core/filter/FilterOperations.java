package dev.bloomguard.core.filter;

import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.stream.Stream;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.FilterKeys;
import dev.bloomguard.core.FilterStatus;
import dev.bloomguard.core.Hold;
import dev.bloomguard.core.LoadRefusedException;
import dev.bloomguard.core.LoadReport;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.hash.KeyHash;
import dev.bloomguard.core.hash.KeyType;
import dev.bloomguard.core.load.CatchUpTurn;
import dev.bloomguard.core.load.RebuildTurn;
import dev.bloomguard.core.mirror.MirrorStats;
import dev.bloomguard.core.misses.RememberedMisses;
import dev.bloomguard.core.redis.BitmapStoreException;
import dev.bloomguard.core.redis.CircuitBreaker;
import dev.bloomguard.core.rollout.FilterGenerations;
import dev.bloomguard.core.write.RewindWatch;

/**
 * What an operator (a warmer, a scheduler, the actuator) uses of a filter: loads, the load lock,
 * the journal, the rewind check and the status. {@link RedisBloomFilter} is the one
 * implementation; a guard's side is {@link FilterGuard}.
 *
 * <p>A load builds the bitmap in memory, uploads it to a staging key and swaps it in with one
 * script that first replays the adds journal. Every add, on any instance, is pushed to that journal
 * before its bits are set, so a swap never drops a key added while the load ran, or since the
 * previous swap (which also covers a transaction that commits after the warmup query's snapshot).
 * The swap checks that Redis kept the whole load (the staging key as uploaded, the journal since the
 * load began) and changes nothing otherwise. The swap empties the journal: a key that exists only
 * through {@link FilterGuard#add} and not in the load's source survives the next load, not the one
 * after.
 */
public interface FilterOperations {

    String name();

    FilterGeometry geometry();

    FilterKeys keys();

    /** How keys are compared, when the filter was given a key type; empty: by their Java type ({@code KeyEncoding}). */
    Optional<KeyType> keyType();

    /** How keys are spread over the bits: murmur3, or siphash under a secret; part of the key names. */
    KeyHash hash();

    /** Names this process in load locks and in the live bitmap's metadata. */
    String instanceId();

    /**
     * The generations of this filter during a rolling change of its configuration, when the
     * builder asked for them ({@link FilterSetup#rollout}); see {@link FilterGenerations}.
     */
    Optional<FilterGenerations<?>> generations();

    /** Loads the filter from a stream of keys; closes the stream. See {@link #load(Iterator)}. */
    default LoadReport load(Stream<?> source) {
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
    default LoadReport load(Iterator<?> source) {
        return load(source, null);
    }

    /**
     * As {@link #load(Iterator)}, recording {@code sourceId} (e.g. a fingerprint of the warmup
     * query) with the live bitmap, so that a later start can tell whether the filter in Redis
     * was built from the same source; see {@link #liveSourceId()}.
     */
    default LoadReport load(Iterator<?> source, String sourceId) {
        return load(source, sourceId, false);
    }

    /**
     * As {@link #load(Iterator, String)}; unless {@code force}, a load that read far fewer keys
     * than the live filter holds (see {@link FilterSetup#maxShrink}) is not swapped in.
     *
     * @throws LoadRefusedException when the load shrank the filter too much; the live filter is kept
     */
    default LoadReport load(Iterator<?> source, String sourceId, boolean force) {
        try (RedisBloomFilter.PendingLoad pending = beginLoad()) {
            return pending.load(source, sourceId, null, force);
        }
    }

    /**
     * Starts a load: call it before the source takes its snapshot (before the warmup query
     * runs), then {@link RedisBloomFilter.PendingLoad#load} with the keys.
     *
     * @throws IllegalStateException when a load of this filter is already running in this process
     */
    RedisBloomFilter.PendingLoad beginLoad();

    boolean isLoading();

    /** The last load this instance completed, if any. */
    Optional<LoadReport> lastLoad();

    /**
     * Takes the cross-instance load lock, so that one instance at a time warms or rebuilds the
     * filter. The lease renews the lock every third of {@code ttl} on {@code renewals} until it
     * is closed; a crashed holder's lock expires after {@code ttl}.
     *
     * @return the lease, or empty when another instance holds the lock
     */
    Optional<RedisBloomFilter.LoadLease> tryLockForLoad(Duration ttl, ScheduledExecutorService renewals);

    /** The instance holding the load lock, if any. */
    Optional<String> lockHolder();

    /** The source the live bitmap was loaded from, as given to {@link #load(Iterator, String)}, if recorded. */
    Optional<String> liveSourceId();

    /** When the live bitmap was swapped in (by any instance), if the metadata says. */
    Optional<Instant> liveSince();

    /**
     * The source's own clock (the database's) just before the load that produced the live bitmap
     * read it, when that load recorded one ({@link RedisBloomFilter.PendingLoad#load(Iterator,
     * String, Instant, boolean)}): where a catch-up of rows written since that load begins. Never
     * the loading instance's clock, which may be skewed from the source's.
     */
    Optional<Instant> liveSourceTime();

    /**
     * Takes this interval's turn at the catch-up of rows written outside the filter's adds from
     * the source {@code sourceId}: one instance of the fleet per {@code interval}, each run from
     * where the fleet's last one began ({@link CatchUpTurn}).
     *
     * @return the turn, or empty when another instance has it
     * @throws BitmapStoreException when Redis fails
     */
    Optional<CatchUpTurn> tryCatchUpTurn(String sourceId, Duration interval);

    /**
     * Takes the fleet's turn at a rebuild on demand ({@link RebuildTurn}): for an endpoint or an
     * operator's tool, never for a warmup or a scheduled rebuild.
     *
     * @return the turn, or empty while a rebuild asked for by any instance is within its cooldown
     * @throws BitmapStoreException when Redis fails
     */
    Optional<RebuildTurn> tryRebuildTurn(Duration cooldown);

    /**
     * Keeps each shard's adds journal within its retention and capacity: every add stays at least
     * {@link FilterSetup#journalRetention} and at most about twice that. Call it periodically (the
     * Spring starter does, every half retention); adds call it by themselves once the journal is
     * over its capacity.
     *
     * @return adds dropped beyond the capacity; the swaps of the next retention then merge the
     *         live bitmap, so that dropping them loses no key
     */
    long maintainJournal();

    /** How long the journal keeps each add; see {@link FilterSetup#journalRetention}. */
    Duration journalRetention();

    /**
     * Notices Redis going back in time (a restart from an older snapshot, a failover to a replica
     * that lagged) and then makes the filter not ready on every instance until it is loaded again;
     * see {@link RewindWatch}. Call it periodically (the Spring starter does, every
     * {@code bloom-guard.rewind-check-interval}); an instance that adds notices at its next add.
     *
     * @return true when this instance found Redis behind and made the filter not ready
     * @throws BitmapStoreException when Redis cannot be read; try again later
     */
    boolean verifyNotBehind();

    /**
     * Holds a reason not to block ({@link Hold}): while it is held, or was at any time between a
     * check being sent and its reply being read, a complete filter's "absent" is answered
     * {@link Membership#NOT_READY}. Held again when held already, it counts as taken anew (a check
     * in flight meanwhile cannot block). Local to this instance, no Redis involved; a check stays
     * one round trip.
     */
    void hold(Hold reason);

    /** Lifts {@code reason}; the other reasons held stay. */
    void release(Hold reason);

    /** The reasons not to block this instance holds on this generation of the filter now. */
    Set<Hold> holds();

    /**
     * Whether the generation that answers this filter's checks now lets its "absent" through:
     * this one {@link #holds held}, or, during a rolling change, the other generation that answers
     * (loaded from another source). Why a check was bypassed, for metrics.
     */
    boolean isAnsweringSuspended();

    /** The state of the circuit breaker in front of this filter's Redis. */
    CircuitBreaker.State circuitState();

    /** True when the live bitmap of every shard is complete (its marker is set). */
    default boolean isReady() {
        return isComplete().orElse(false);
    }

    /**
     * Whether the live bitmap of every shard is complete, as Redis answered; empty when Redis did
     * not (a timeout, an open circuit), which says nothing about the filter.
     */
    Optional<Boolean> isComplete();

    /**
     * Reads the filter's state from Redis: a {@code BITCOUNT} over the whole bitmap plus a few
     * small reads. For operators; never on a request path. While a grown generation answers, its state.
     */
    FilterStatus status();

    /** The local mirror's counters, when the filter has one. */
    Optional<MirrorStats> mirrorStats();

    /**
     * The keys this filter remembers as absent after a guarded method found nothing, when the
     * builder asked for them ({@link FilterSetup#rememberMisses}); see {@link RememberedMisses}.
     */
    Optional<RememberedMisses> rememberedMisses();
}
