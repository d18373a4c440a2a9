package dev.bloomguard.core.redis;

import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What a check reads: a key's bits with one {@code BITFIELD_RO}, for one key or a batch, blocking
 * or not; and a range of a bitmap, for the local mirror's pages.
 *
 * <p>A role of {@link BitmapStore}; every failure, refusal or timeout is a {@link BitmapStoreException}.
 */
public interface CheckStore {

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
        return Completions.now(() -> readBits(key, offsets, count, timeout));
    }

    /** {@link #readBitsMany} without blocking the calling thread; see {@link #readBitsAsync}. */
    default CompletableFuture<List<BitSet>> readBitsManyAsync(List<String> keys, List<long[]> offsets,
            Duration timeout) {
        return Completions.now(() -> readBitsMany(keys, offsets, timeout));
    }

    /** {@code GETRANGE key start end} (inclusive byte offsets); empty when the key does not exist. */
    byte[] getRange(String key, long start, long end);
}
