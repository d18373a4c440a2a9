package dev.bloomguard.spring.interceptor;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.redis.BitmapStoreException;
import dev.bloomguard.core.upkeep.RetriedAdds;
import dev.bloomguard.spring.BloomGuardException;
import dev.bloomguard.spring.metrics.GuardObservations;

/**
 * The add of {@code @BloomPut}, blocking or not: the key of the call's result into the filter,
 * counted and observed; a refused add handed to {@link RetriedAdds} for retries, and failing
 * the call when a transaction can still roll its row back; the keys' remembered misses
 * forgotten again once a thread-bound transaction commits. Knows nothing of the call itself,
 * so every return kind's handler shares it; the product's promise (a key that exists is never
 * blocked) rests on these adds.
 *
 * <p>Logs under {@link BloomGuardInterceptor}'s name, the category the documentation gives.
 */
final class KeyAdds {

    private static final Logger log = LoggerFactory.getLogger(BloomGuardInterceptor.class);

    private final GuardDependencies dependencies;
    private final RetriedAdds retriedAdds;
    private final SingleFlight flights;

    KeyAdds(GuardDependencies dependencies, RetriedAdds retriedAdds, SingleFlight flights) {
        this.dependencies = dependencies;
        this.retriedAdds = retriedAdds;
        this.flights = flights;
    }

    /** The filter {@code put} adds to. */
    RedisBloomFilter filter(BloomOperations.Put put) {
        return put.target().in(dependencies);
    }

    /** A put to {@code filter} has just committed, outside any thread-bound transaction (a reactive one's). */
    void written(String filter) {
        flights.written(filter);
    }

    /**
     * Adds the key of {@code result}, blocking the calling thread until it is in the filter.
     *
     * @throws BloomGuardException when Redis refused it inside a transaction, which failing the call rolls back
     */
    void add(BloomOperations.Put put, Object target, Object[] arguments, Object result) {
        if (put.singleFlight()) {
            flights.writing(put.filter());
        }
        Object key = CallKeys.putKey(put, target, arguments, result);
        if (key == null) {
            return;
        }
        RedisBloomFilter filter = put.target().in(dependencies);
        int keys = key instanceof List<?> batch ? batch.size() : 1;
        GuardObservations.Pending observation = dependencies.observations().put(put.filter());
        try {
            if (key instanceof List<?> batch) {
                filter.addAll(batch);
            }
            else {
                filter.add(key);
            }
            forgetAgainAfterCommit(filter, key instanceof List<?> batch ? batch : List.of(key));
            dependencies.metrics().recordAdd(put.filter(), keys, false);
            observation.stop(GuardDependencies.ADDED, null);
        }
        catch (BitmapStoreException ex) {
            retriedAdds.retry(filter, key instanceof List<?> batch ? batch : List.of(key));
            dependencies.metrics().recordAdd(put.filter(), keys, true);
            observation.stop(GuardDependencies.FAILED, ex);
            if (TransactionSynchronizationManager.isActualTransactionActive()) {
                // The row is not committed yet: failing the call rolls it back. (The retried key,
                // if the caller commits anyway, is then a harmless false positive.)
                throw addFailed(put, ex);
            }
            log.warn("@BloomPut on {} could not add to filter '{}' ({}); its row is already committed, so the add is"
                    + " retried in the background and this instance does not block the filter until it lands",
                    put.method(), put.filter(), ex.getMessage());
        }
        catch (IllegalArgumentException ex) {
            throw GuardDependencies.failed(observation, Keys.unhashable(ex, CallKeys.PUT, put.method(), put.filter()));
        }
        catch (RuntimeException ex) {
            throw GuardDependencies.failed(observation, ex);
        }
    }

    /**
     * Adds the key of {@code result} without blocking the calling thread: the future completes
     * with the keys added (none when the key was null) once they are in the filter, or fails with
     * {@link BloomGuardException}.
     */
    CompletableFuture<List<?>> addAsync(BloomOperations.Put put, Object target, Object[] arguments, Object result) {
        if (put.singleFlight()) {
            flights.writing(put.filter());
        }
        try {
            Object key = CallKeys.putKey(put, target, arguments, result);
            if (key == null) {
                return CompletableFuture.completedFuture(List.of());
            }
            RedisBloomFilter filter = put.target().in(dependencies);
            List<?> keys = key instanceof List<?> batch ? batch : List.of(key);
            // A future completed on the caller's thread inside its transaction: forgotten again at commit.
            forgetAgainAfterCommit(filter, keys);
            GuardObservations.Pending observation = dependencies.observations().put(put.filter());
            CompletableFuture<Void> added;
            try {
                added = filter.addAllAsync(keys);
            }
            catch (RuntimeException ex) {
                throw GuardDependencies.failed(observation, ex);
            }
            return added
                    .<List<?>>handle((done, error) -> {
                        if (error != null) {
                            // Whether a transaction will roll the row back is not known here: fail the
                            // result so that one can, and keep the key so that a committed row is not
                            // blocked. First, so that nothing reported after it can skip it.
                            retriedAdds.retry(filter, keys);
                        }
                        dependencies.metrics().recordAdd(put.filter(), keys.size(), error != null);
                        observation.stop(error == null ? GuardDependencies.ADDED : GuardDependencies.FAILED, error);
                        if (error != null) {
                            throw addFailed(put, error instanceof CompletionException && error.getCause() != null
                                    ? error.getCause() : error);
                        }
                        return keys;
                    });
        }
        catch (IllegalArgumentException ex) {
            return CompletableFuture.failedFuture(Keys.unhashable(ex, CallKeys.PUT, put.method(), put.filter()));
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /**
     * Inside a transaction the add comes before the commit, so a lookup elsewhere may still not
     * find the row for as long as the transaction runs, and remember a miss after the add's mark
     * expired: once the transaction commits, its keys' misses are forgotten again (a fresh mark, a
     * delete) before the committing call returns; a failure is logged, and the miss ends with its ttl.
     */
    private static void forgetAgainAfterCommit(RedisBloomFilter filter, List<?> keys) {
        if (!TransactionSynchronizationManager.isSynchronizationActive()) {
            return;
        }
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCommit() {
                try {
                    // Before the committing call returns, as the add itself was.
                    filter.forgetMissesAsync(keys).join();
                }
                catch (RuntimeException ex) {
                    log.warn("Filter '{}': could not forget remembered misses of keys committed just now ({});"
                            + " a remembered one stays rejected until its negative-cache ttl ends", filter.name(),
                            ex.getMessage());
                }
            }
        });
    }

    static BloomGuardException addFailed(BloomOperations.Put put, Throwable cause) {
        return new BloomGuardException("@BloomPut on " + put.method() + " could not add the key to filter '"
                + put.filter() + "': " + cause.getMessage(), cause);
    }
}
