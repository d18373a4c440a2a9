package dev.bloomguard.core;

import java.time.Duration;
import java.util.Iterator;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;

/**
 * What an operator (a warmer, a scheduler, the actuator) uses of a filter: loads, the load lock,
 * the rewind check and the status. {@link RedisBloomFilter} is the one implementation; a guard's
 * side is {@link FilterGuard}.
 */
public interface FilterOperations {

    String name();

    /**
     * Replaces the filter with one built from {@code source} plus every add journaled since the
     * previous swap, recording {@code sourceId} with it; unless {@code force}, a load that read far
     * fewer keys than the live filter holds is not swapped in.
     */
    LoadReport load(Iterator<?> source, String sourceId, boolean force);

    /** Starts a load before its source takes its snapshot; see {@link RedisBloomFilter#beginLoad}. */
    RedisBloomFilter.PendingLoad beginLoad();

    /** Takes the cross-instance load lock; empty when another instance holds it. */
    Optional<RedisBloomFilter.LoadLease> tryLockForLoad(Duration ttl, ScheduledExecutorService renewals);

    /** Whether Redis went back in time, losing adds; if so the filter is made not ready everywhere. */
    boolean verifyNotBehind();

    /** The filter's state, read from Redis; for operators, never on a request path. */
    FilterStatus status();
}
