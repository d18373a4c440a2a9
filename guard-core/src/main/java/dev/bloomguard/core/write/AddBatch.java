package dev.bloomguard.core.write;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import dev.bloomguard.core.context.FilterContext;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.PackedOffsets;

/**
 * The journal entries and bits of a batch of adds, grouped by shard: one entry per key (its k
 * offsets packed), all of a shard's offsets in one {@code BITFIELD SET}.
 */
final class AddBatch {

    final List<BitmapStore.ShardAdds> batch = new ArrayList<>();
    final List<Integer> shards = new ArrayList<>();
    /** This instance's adds confirmed before the batch was sent, per shard: Redis counted them first. */
    final long[] confirmedBefore;
    final long epoch;

    AddBatch(FilterContext filter, AddCounts addCounts, Collection<?> keys) {
        int hashes = filter.geometry().hashes();
        int shardCount = filter.geometry().shards();
        confirmedBefore = new long[shardCount];
        epoch = addCounts.snapshot(confirmedBefore);
        List<List<long[]>> byShard = new ArrayList<>(shardCount);
        for (int shard = 0; shard < shardCount; shard++) {
            byShard.add(new ArrayList<>());
        }
        long[] offsets = new long[hashes];
        for (Object key : keys) {
            if (key != null) {
                byShard.get(filter.place(key, offsets, 0)).add(offsets.clone());
            }
        }
        for (int shard = 0; shard < shardCount; shard++) {
            List<long[]> added = byShard.get(shard);
            if (added.isEmpty()) {
                continue;
            }
            long[] all = new long[added.size() * hashes];
            List<byte[]> entries = new ArrayList<>(added.size());
            for (int i = 0; i < added.size(); i++) {
                System.arraycopy(added.get(i), 0, all, i * hashes, hashes);
                entries.add(PackedOffsets.pack(all, i * hashes, hashes));
            }
            batch.add(new BitmapStore.ShardAdds(filter.keys().journal(shard), entries, filter.keys().live(shard), all,
                    filter.keys().addCount(shard), filter.instanceId()));
            shards.add(shard);
        }
    }

    boolean isEmpty() {
        return batch.isEmpty();
    }
}
