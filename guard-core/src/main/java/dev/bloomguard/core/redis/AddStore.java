package dev.bloomguard.core.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What an add writes: per shard, the journal entries, the bits and this instance's add count, all
 * commands sent before any reply is awaited.
 *
 * <p>A role of {@link BitmapStore}; every failure, refusal or timeout is a {@link BitmapStoreException}.
 */
public interface AddStore {

    /** {@link #journalAndSetBitsMany} without blocking the calling thread; see {@link CheckStore#readBitsAsync}. */
    default CompletableFuture<List<AddReceipt>> journalAndSetBitsManyAsync(List<ShardAdds> adds) {
        return Completions.now(() -> journalAndSetBitsMany(adds));
    }

    /**
     * Records adds for the swaps to come and sets their bits, for several shards, every command
     * sent before any reply is awaited (about one round trip per node): per shard
     * {@code RPUSH journal entries...}, {@code BITFIELD bitmapKey SET ...}, then, when the shard
     * has a count key, {@code HINCRBY countKey countField entries}. The order matters: a swap that runs between
     * the push and the bits has already replayed the entry, and the bits then land on the new
     * bitmap; and a snapshot of Redis that holds the count holds the bits counted.
     *
     * @return per shard, the journal's length after the push and the count after the increment
     *         (-1 without a count key)
     */
    List<AddReceipt> journalAndSetBitsMany(List<ShardAdds> adds);

    /**
     * The adds of one shard: journal entries, the bits to set, and the hash and field counting
     * this instance's adds (null: not counted).
     */
    record ShardAdds(String journalKey, List<byte[]> entries, String bitmapKey, long[] offsets, String countKey,
            String countField) {
    }

    /** What {@link #journalAndSetBitsMany} left in one shard. */
    record AddReceipt(long journalLength, long addCount) {
    }
}
