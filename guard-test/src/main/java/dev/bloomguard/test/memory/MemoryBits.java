package dev.bloomguard.test.memory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

import dev.bloomguard.core.redis.AddStore;
import dev.bloomguard.core.redis.CheckStore;

/**
 * Bits in memory: what a check reads ({@link CheckStore}, as {@code BITFIELD_RO} and
 * {@code GETRANGE} read) and what an add writes ({@link AddStore}: journal, bits, count). The
 * timeouts are not needed: nothing here waits for anything but the keyspace's lock.
 */
final class MemoryBits implements CheckStore, AddStore {

    private final Keyspace keys;
    private final MemoryKeys primitives;

    MemoryBits(Keyspace keys, MemoryKeys primitives) {
        this.keys = keys;
        this.primitives = primitives;
    }

    @Override
    public BitSet readBits(String key, long[] offsets, int count, Duration timeout) {
        return keys.read(() -> bits(key, offsets, count));
    }

    @Override
    public List<BitSet> readBitsMany(List<String> names, List<long[]> offsets, Duration timeout) {
        return keys.read(() -> {
            List<BitSet> answers = new ArrayList<>(names.size());
            for (int i = 0; i < names.size(); i++) {
                answers.add(bits(names.get(i), offsets.get(i), offsets.get(i).length));
            }
            return answers;
        });
    }

    /** {@code GETRANGE}: inclusive, negative offsets counting from the end, clamped to the value. */
    @Override
    public byte[] getRange(String key, long start, long end) {
        return keys.read(() -> {
            byte[] value = keys.string(key);
            if (value == null) {
                return new byte[0];
            }
            long from = Math.max(0, start < 0 ? value.length + start : start);
            long to = Math.min(value.length - 1L, end < 0 ? value.length + end : end);
            return from > to ? new byte[0] : Arrays.copyOfRange(value, (int) from, (int) to + 1);
        });
    }

    /** Per shard, in this order: the journal's push, the bits, the count; all shards at once. */
    @Override
    public List<AddReceipt> journalAndSetBitsMany(List<ShardAdds> adds) {
        return keys.write(() -> {
            List<AddReceipt> receipts = new ArrayList<>(adds.size());
            for (ShardAdds shard : adds) {
                List<byte[]> journal = keys.listToWrite(shard.journalKey());
                shard.entries().forEach(entry -> journal.add(entry.clone()));
                long length = journal.size();
                keys.dropIfEmpty(shard.journalKey());
                for (long offset : shard.offsets()) {
                    keys.setBit(shard.bitmapKey(), offset, true);
                }
                long count = -1;
                if (shard.countKey() != null) {
                    count = primitives.hashIncrement(shard.countKey(), shard.countField(), shard.entries().size());
                }
                receipts.add(new AddReceipt(length, count));
            }
            return receipts;
        });
    }

    private BitSet bits(String key, long[] offsets, int count) {
        byte[] value = keys.string(key);
        BitSet set = new BitSet(count);
        for (int i = 0; i < count; i++) {
            if (Keyspace.bit(value, offsets[i])) {
                set.set(i);
            }
        }
        return set;
    }
}
