package dev.bloomguard.core.filter;

import dev.bloomguard.core.LoadReport;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.NotReadyCause;
import dev.bloomguard.core.redis.CircuitBreaker;

/**
 * What a filter tells its {@link FilterListener}s: that a check found it unable to answer, and
 * why; that a load swapped in; that an add failed; that the circuit in front of its Redis changed.
 * The warmer, metrics and status hear of a filter's state this way, instead of asking it again.
 */
public sealed interface FilterEvent {

    /** The filter (the generation) the event happened to. */
    RedisBloomFilter filter();

    /**
     * A check answered {@link Membership#NOT_READY}, or the filter was made not ready: a load would
     * let it block again, unless {@code cause} says the load must come from another query.
     */
    record NotReady(RedisBloomFilter filter, NotReadyCause cause) implements FilterEvent {
    }

    /** A load of this filter swapped its bitmap in. */
    record Loaded(RedisBloomFilter filter, LoadReport report) implements FilterEvent {
    }

    /**
     * An add of {@code keys} keys failed with {@code error} (what the caller got, or its cause when
     * an asynchronous add's future completed with a {@code CompletionException}): they may be missing
     * until they are added again or the filter is loaded.
     */
    record AddFailed(RedisBloomFilter filter, int keys, Throwable error) implements FilterEvent {
    }

    /**
     * The circuit breaker of the filter's store went from {@code from} to {@code to} (see
     * {@link CircuitBreaker} for when). The breaker is the store's: every filter on it tells its
     * listeners of the same transition, so a listener of several filters that counts or logs
     * transitions once per store should subscribe to the store instead
     * ({@link dev.bloomguard.core.redis.BitmapStore#onCircuitTransition}).
     */
    record CircuitChanged(RedisBloomFilter filter, CircuitBreaker.State from, CircuitBreaker.State to)
            implements FilterEvent {
    }
}
