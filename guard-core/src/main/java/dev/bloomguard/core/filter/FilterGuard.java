package dev.bloomguard.core.filter;

import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

import dev.bloomguard.core.Membership;
import dev.bloomguard.core.misses.RememberedMisses;
import dev.bloomguard.core.redis.BitmapStoreException;

/**
 * What a guard uses of a filter: checks before a lookup, adds after a save. {@link RedisBloomFilter}
 * is the one implementation; the operator's side is {@link FilterOperations}.
 *
 * <p>Only {@link Membership#ABSENT} may block a call. Checks never throw for Redis failures (they
 * answer {@link Membership#UNAVAILABLE}); adds do, since a lost add would block a real key.
 */
public interface FilterGuard {

    String name();

    /**
     * What the filter says about {@code key}, in one Redis round trip to the node of the key's
     * shard (none when the mirror knows the key). Never throws for Redis failures.
     */
    Membership check(Object key);

    /**
     * {@link #check} without blocking the calling thread, for reactive callers: the same one
     * {@code BITFIELD_RO} (or none), completing on the Redis client's I/O thread. The future
     * never completes exceptionally; Redis failures answer {@link Membership#UNAVAILABLE}.
     */
    CompletableFuture<Membership> checkAsync(Object key);

    /**
     * What the filter says about each of {@code keys}, in iteration order: one {@code BITFIELD_RO}
     * per shard that holds any of them, all sent before any reply is awaited, so a batch costs
     * about one round trip per node; more than {@code maxBatchSize} keys are sent in chunks of that
     * many, one after another. Null elements answer {@link Membership#PRESENT}: they are never
     * checked, so never blocked.
     */
    List<Membership> checkAll(Collection<?> keys);

    /**
     * {@link #checkAll} without blocking the calling thread; see {@link #checkAsync}. The future
     * never completes exceptionally.
     */
    CompletableFuture<List<Membership>> checkAllAsync(Collection<?> keys);

    /**
     * False only when the key is definitely absent; "cannot tell" is {@code true}. The one thing
     * easy to get wrong: treating "cannot tell" as "absent" would block real keys.
     */
    default boolean mightContain(Object key) {
        return !check(key).isAbsent();
    }

    /**
     * Adds {@code key}: it is journaled for the next swap and its bits are set, before this returns.
     *
     * @throws BitmapStoreException when Redis fails; the key may then be missing until the next load
     */
    default void add(Object key) {
        Objects.requireNonNull(key, "key");
        addAll(List.of(key));
    }

    /**
     * Adds every non-null key of {@code keys}: one round trip per shard they fall in, per chunk of
     * {@code maxBatchSize} keys. When one fails, the chunks before it stay added.
     *
     * @throws BitmapStoreException when Redis fails
     */
    void addAll(Collection<?> keys);

    /**
     * {@link #addAll} without blocking the calling thread, for reactive callers: the future
     * completes once every key is journaled and its bits set, or with a
     * {@link BitmapStoreException} when Redis refused or did not answer.
     */
    CompletableFuture<Void> addAllAsync(Collection<?> keys);

    /**
     * Forgets any remembered miss of {@code added}, keys added a moment ago (see {@link #addAll}),
     * in this filter's generation and in every other generation it writes to during a rolling
     * change (whose instances remember misses under their own keys): the starter calls it once
     * more after the commit of a transaction that added them, since a lookup may not see their
     * rows until then. Completes once Redis has done it.
     */
    CompletableFuture<Void> forgetMissesAsync(Collection<?> added);

    /**
     * Whether {@code key} is remembered as absent ({@link RememberedMisses#isRememberedAsync}):
     * false at once without remembered misses or when this instance's generation does not answer
     * its own checks (a rolling change, before it is loaded covering every writer).
     */
    CompletableFuture<Boolean> isRememberedMissAsync(Object key, String scope);

    /**
     * Remembers that the lookup {@code scope} (a method), guarded by a check begun at
     * {@code checkStartedNanos}, found nothing for {@code key}.
     */
    CompletableFuture<Boolean> rememberMissAsync(Object key, String scope, long checkStartedNanos);
}
