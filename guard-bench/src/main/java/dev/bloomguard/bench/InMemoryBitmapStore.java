package dev.bloomguard.bench;

import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.CircuitBreaker;

/**
 * A {@link BitmapStore} in this JVM's memory, for measuring what bloom-guard itself costs around
 * a check (the aspect, the key expression, hashing) with no network in the number. Not for use
 * outside the benchmark: it has no journal, lock or persistence semantics worth the name.
 */
final class InMemoryBitmapStore implements BitmapStore {

    private final Map<String, byte[]> values = new ConcurrentHashMap<>();
    private final Map<String, Map<String, String>> hashes = new ConcurrentHashMap<>();

    @Override
    public BitSet readBits(String key, long[] offsets, int count, Duration timeout) {
        byte[] bitmap = values.get(key);
        BitSet set = new BitSet(count);
        if (bitmap != null) {
            for (int i = 0; i < count; i++) {
                long offset = offsets[i];
                int index = (int) (offset >>> 3);
                if (index < bitmap.length && (bitmap[index] & (0x80 >>> (offset & 7))) != 0) {
                    set.set(i);
                }
            }
        }
        return set;
    }

    @Override
    public List<BitSet> readBitsMany(List<String> keys, List<long[]> offsets, Duration timeout) {
        List<BitSet> answers = new java.util.ArrayList<>(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            answers.add(readBits(keys.get(i), offsets.get(i), offsets.get(i).length, timeout));
        }
        return answers;
    }

    @Override
    public List<AddReceipt> journalAndSetBitsMany(List<ShardAdds> adds) {
        throw new UnsupportedOperationException("the benchmark only reads");
    }

    @Override
    public long beginJournalLoad(JournalKeys journal, String token, byte[] mark, Duration ttl) {
        return 0;
    }

    @Override
    public long[] replayJournal(Staging staging, JournalKeys journal, String list, long start, int count,
            boolean verifyUpload) {
        return new long[] { 0, 0 };
    }

    @Override
    public long maintainJournal(JournalKeys journal, Duration retention, long capacity) {
        return 0;
    }

    @Override
    public byte[] getRange(String key, long start, long end) {
        byte[] bitmap = values.get(key);
        if (bitmap == null || start >= bitmap.length) {
            return new byte[0];
        }
        return java.util.Arrays.copyOfRange(bitmap, (int) start, (int) Math.min(bitmap.length, end + 1));
    }

    @Override
    public void publish(String channel, byte[] message) {
    }

    /** Nobody else hears this store: nothing to announce to. */
    @Override
    public CompletableFuture<Boolean> announceAsync(String metaKey, String channel, byte[] message) {
        return CompletableFuture.completedFuture(false);
    }

    @Override
    public long[] renewTrust(String metaKey, String channel, byte[] ping, Duration ttl) {
        long now = System.currentTimeMillis();
        return new long[] { now + ttl.toMillis(), now + ttl.toMillis(), now };
    }

    /** One process holds this store, so nobody else publishes to it: nothing is ever missed. */
    @Override
    public Subscription subscribe(String channel, ChannelListener listener) {
        return new Subscription() {
            @Override
            public boolean isHearing() {
                return true;
            }

            @Override
            public void close() {
            }
        };
    }

    @Override
    public void writeBitmap(String key, byte[] bitmap, Duration expiry) {
        values.put(key, bitmap.clone());
    }

    @Override
    public long swapIn(Staging staging, String live, JournalKeys journal, long tailStart, String metaKey,
            Map<String, String> meta) {
        byte[] bitmap = values.remove(staging.key());
        if (bitmap == null) {
            return STAGING_ALTERED;
        }
        values.put(live, bitmap);
        hashes.put(metaKey, new ConcurrentHashMap<>(meta));
        return 0;
    }

    @Override
    public Heartbeat heartbeat(String instancesKey, String generationsKey, String invalidatedKey, String instanceId,
            String instanceValue, List<String> generations, List<String> invalidated) {
        long now = System.currentTimeMillis();
        hashes.computeIfAbsent(instancesKey, key -> new ConcurrentHashMap<>()).put(instanceId, instanceValue + "|" + now);
        Map<String, String> registry = hashes.computeIfAbsent(generationsKey, key -> new ConcurrentHashMap<>());
        generations.forEach(generation -> registry.put(generation, Long.toString(now)));
        Map<String, String> records = hashes.computeIfAbsent(invalidatedKey, key -> new ConcurrentHashMap<>());
        invalidated.forEach(live -> records.put(live, Long.toString(now)));
        return new Heartbeat(now, Map.copyOf(hashes.get(instancesKey)), Map.copyOf(registry),
                Map.copyOf(records));
    }

    @Override
    public Registry readRegistry(String generationsKey, String invalidatedKey) {
        return new Registry(System.currentTimeMillis(), Map.copyOf(hashes.getOrDefault(generationsKey, Map.of())),
                Map.copyOf(hashes.getOrDefault(invalidatedKey, Map.of())));
    }

    @Override
    public void hashSet(String key, String field, String value) {
        hashes.computeIfAbsent(key, name -> new ConcurrentHashMap<>()).put(field, value);
    }

    @Override
    public long timeMillis(String slotKey) {
        return System.currentTimeMillis();
    }

    @Override
    public long hashIncrement(String key, String field, long by) {
        return Long.parseLong(hashes.computeIfAbsent(key, name -> new ConcurrentHashMap<>())
                .merge(field, Long.toString(by), (before, more) -> Long.toString(Long.parseLong(before) + by)));
    }

    @Override
    public void hashDelete(String key, String field) {
    }

    @Override
    public void clearBit(String key, long offset) {
        throw new UnsupportedOperationException("the benchmark only reads");
    }

    @Override
    public long bitCount(String key) {
        return 0;
    }

    @Override
    public long length(String key) {
        byte[] bitmap = values.get(key);
        return bitmap == null ? 0 : bitmap.length;
    }

    @Override
    public long listLength(String key) {
        return 0;
    }

    @Override
    public void listBlankIfEquals(String key, long index, byte[] value) {
    }

    @Override
    public void delete(String... keys) {
        for (String key : keys) {
            values.remove(key);
        }
    }

    @Override
    public boolean setIfAbsent(String key, String value, Duration ttl) {
        return true;
    }

    @Override
    public boolean expireIfEquals(String key, String value, Duration ttl) {
        return true;
    }

    @Override
    public boolean deleteIfEquals(String key, String value) {
        return true;
    }

    @Override
    public Optional<String> get(String key) {
        return Optional.empty();
    }

    @Override
    public Map<String, String> hashGetAll(String key) {
        return Map.copyOf(hashes.getOrDefault(key, Map.of()));
    }

    @Override
    public CircuitBreaker.State circuitState() {
        return CircuitBreaker.State.CLOSED;
    }
}
