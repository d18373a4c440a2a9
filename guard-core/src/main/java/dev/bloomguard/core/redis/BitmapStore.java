package dev.bloomguard.core.redis;

import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The few Redis operations a filter needs. Every method is one round trip unless it says
 * otherwise; a missing key reads as all zeros, as Redis itself does. Every failure, refusal or
 * timeout is a {@link BitmapStoreException}.
 */
public interface BitmapStore {

    /**
     * Reads the bits at {@code offsets[0 .. count)} of {@code key} with one {@code BITFIELD_RO}.
     *
     * @return the indexes (into {@code offsets}) whose bit is set
     * @throws BitmapStoreException when Redis fails or does not answer within {@code timeout}
     */
    BitSet readBits(String key, long[] offsets, int count, Duration timeout);

    /**
     * {@link #readBits} for several keys (shards), every command sent before any reply is
     * awaited: about one round trip per node. Each {@code offsets} array is read whole.
     *
     * @return one answer per key, in order
     */
    List<BitSet> readBitsMany(List<String> keys, List<long[]> offsets, Duration timeout);

    /**
     * {@link #readBits} without blocking the calling thread, for reactive callers: the future
     * completes with the answer or with a {@link BitmapStoreException}, never later than
     * {@code timeout}. The default answers by calling {@link #readBits} at once, which is right
     * for a store that does no I/O; a store that talks to Redis overrides it.
     */
    default CompletableFuture<BitSet> readBitsAsync(String key, long[] offsets, int count, Duration timeout) {
        return completeNow(() -> readBits(key, offsets, count, timeout));
    }

    /** {@link #readBitsMany} without blocking the calling thread; see {@link #readBitsAsync}. */
    default CompletableFuture<List<BitSet>> readBitsManyAsync(List<String> keys, List<long[]> offsets,
            Duration timeout) {
        return completeNow(() -> readBitsMany(keys, offsets, timeout));
    }

    /** {@link #journalAndSetBitsMany} without blocking the calling thread; see {@link #readBitsAsync}. */
    default CompletableFuture<Void> journalAndSetBitsManyAsync(List<ShardAdds> adds, long journalCapacity) {
        return completeNow(() -> {
            journalAndSetBitsMany(adds, journalCapacity);
            return null;
        });
    }

    /** {@link #publish} without blocking the calling thread; see {@link #readBitsAsync}. */
    default CompletableFuture<Void> publishAsync(String channel, byte[] message) {
        return completeNow(() -> {
            publish(channel, message);
            return null;
        });
    }

    private static <T> CompletableFuture<T> completeNow(java.util.function.Supplier<T> call) {
        try {
            return CompletableFuture.completedFuture(call.get());
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /** Sets the bits at {@code offsets[0 .. count)} of {@code key} ({@code BITFIELD ... SET}). */
    void setBits(String key, long[] offsets, int count);

    /**
     * Records an add for the next swap and sets its bits, in this order and one round trip:
     * {@code RPUSH journalKey entries...}, {@code LTRIM} to the newest {@code journalCapacity}
     * entries, then {@code BITFIELD bitmapKey SET ...}. The order matters: a swap that runs
     * between them has already replayed the entry, and the {@code BITFIELD} then lands on the
     * new bitmap.
     */
    void journalAndSetBits(String journalKey, List<byte[]> entries, long journalCapacity, String bitmapKey,
            long[] offsets, int count);

    /**
     * {@link #journalAndSetBits} for several shards, every command sent before any reply is
     * awaited: a batch of adds costs about one round trip per node, not per shard.
     */
    default void journalAndSetBitsMany(List<ShardAdds> adds, long journalCapacity) {
        for (ShardAdds shard : adds) {
            journalAndSetBits(shard.journalKey(), shard.entries(), journalCapacity, shard.bitmapKey(), shard.offsets(),
                    shard.offsets().length);
        }
    }

    /** The adds of one shard: journal entries and the bits to set. */
    record ShardAdds(String journalKey, List<byte[]> entries, String bitmapKey, long[] offsets) {
    }

    /** {@code GETRANGE key start end} (inclusive byte offsets); empty when the key does not exist. */
    byte[] getRange(String key, long start, long end);

    /** {@code PUBLISH channel message}. */
    void publish(String channel, byte[] message);

    /**
     * Subscribes {@code listener} to {@code channel} on a connection of its own, which
     * reconnects and resubscribes by itself; closing the result unsubscribes.
     */
    AutoCloseable subscribe(String channel, java.util.function.Consumer<byte[]> listener);

    /**
     * Writes {@code bitmap} as the whole value of {@code key}, expiring after {@code expiry}:
     * one {@code SET} for the first chunk and {@code SETRANGE} for the rest, so Redis allocates
     * the string once instead of growing it bit by bit.
     */
    void writeBitmap(String key, byte[] bitmap, Duration expiry);

    /** {@link #swapIn}'s answer when the staging key is missing or is not the bitmap uploaded. */
    long STAGING_ALTERED = -1;

    /** {@link #swapIn}'s answer when the journal no longer holds the load's mark: adds may be lost. */
    long JOURNAL_LOST = -2;

    /**
     * An uploaded bitmap as the swap must find it.
     *
     * @param key the staging key
     * @param length its length in bytes
     * @param population its set bits
     * @param journalMark the entry the load pushed onto the journal before reading its source
     */
    record Staging(String key, long length, long population, byte[] journalMark) {
    }

    /**
     * Atomically (one script), and only if {@code staging} still has its length and population
     * and the journal still holds its mark: replays every add in the journal onto the staging key,
     * removes its expiry, renames it over {@code live}, empties the journal and records {@code meta}.
     * Otherwise changes nothing.
     *
     * @return adds replayed, or {@link #STAGING_ALTERED} or {@link #JOURNAL_LOST}
     */
    long swapIn(Staging staging, String live, String journalKey, String metaKey, Map<String, String> meta);

    /** {@code BITCOUNT} of the whole value; 0 when it does not exist. */
    long bitCount(String key);

    /** Length of the key's value in bytes, 0 when it does not exist. */
    long length(String key);

    void delete(String key);

    /** {@code LLEN key}: 0 when it does not exist. */
    long listLength(String key);

    /** {@code LREM key 1 value}: removes the first element equal to {@code value}, if any. */
    void listRemove(String key, byte[] value);

    /** {@code SET key value NX PX ttl}: true when the key was free and is now {@code value}. */
    boolean setIfAbsent(String key, String value, Duration ttl);

    /** Extends the expiry of {@code key} only while it still holds {@code value}. */
    boolean expireIfEquals(String key, String value, Duration ttl);

    /** Deletes {@code key} only while it still holds {@code value}. */
    boolean deleteIfEquals(String key, String value);

    Optional<String> get(String key);

    Map<String, String> hashGetAll(String key);

    /** The store's circuit breaker, for operators. */
    CircuitBreaker.State circuitState();
}
