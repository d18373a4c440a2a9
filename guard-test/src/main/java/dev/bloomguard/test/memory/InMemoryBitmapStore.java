package dev.bloomguard.test.memory;

import java.time.Clock;
import java.time.Duration;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.CircuitBreaker;
import dev.bloomguard.core.redis.LettuceBitmapStore;

/**
 * A {@link BitmapStore} in this JVM's memory, for tests and for a filter that lives in one process,
 * as Spring's {@code ConcurrentMapCacheManager} is for caching: no Redis, no network, nothing kept
 * after the process ends.
 *
 * <p><strong>It is per process.</strong> Two instances of an application, each with its own
 * in-memory store, do not see each other's adds, loads, locks or events: a key added through one
 * is blocked by the other. It must never back a fleet; use {@link LettuceBitmapStore} there. The
 * Spring Boot starter never creates one by itself: declare it as the {@code BitmapStore} bean,
 * and the starter's Redis store steps aside.
 *
 * <p>Within the process it keeps every promise {@link LettuceBitmapStore} keeps, with the same
 * keys in the same types: bits read and set as {@code BITFIELD} does, adds journalled, loads
 * staged, replayed and swapped in with the same refusals, ready markers and {@code :meta} fields,
 * locks with fencing tokens and expiries, the rolling-change registry, remembered misses with their
 * TTLs, counters, and pub/sub delivered in order to this store's subscribers on a thread of its
 * own. Each method is atomic, as its command or script is in Redis, and the store is thread-safe.
 * Expiries and Redis's clock are {@link #create(Clock) its clock}. Nothing here does I/O, so no
 * call times out and the circuit is always {@link CircuitBreaker.State#CLOSED closed}.
 *
 * <p>What a test on it therefore does not show: a Redis timeout or outage, an add to several shards
 * that Redis pipelines (possibly to several Cluster nodes) and here is atomic, an asynchronous call
 * that Redis completes on another thread and here completes on the caller's, and a script whose
 * keys are not in one Cluster slot. Tests of those need a real Redis.
 */
public final class InMemoryBitmapStore implements BitmapStore, AutoCloseable {

    private final Keyspace keys;
    private final MemoryBits bits;
    private final MemoryLoads loads;
    private final MemoryEvents events;
    private final MemoryMisses misses;
    private final MemoryKeys primitives;

    private InMemoryBitmapStore(Clock clock) {
        this.keys = new Keyspace(clock);
        this.primitives = new MemoryKeys(keys);
        this.bits = new MemoryBits(keys, primitives);
        this.loads = new MemoryLoads(keys);
        this.events = new MemoryEvents(keys);
        this.misses = new MemoryMisses(keys);
    }

    /** An empty store on the system clock. */
    public static InMemoryBitmapStore create() {
        return create(Clock.systemUTC());
    }

    /** An empty store whose expiries and time ({@link #timeMillis}) follow {@code clock}, for tests that move time. */
    public static InMemoryBitmapStore create(Clock clock) {
        return new InMemoryBitmapStore(Objects.requireNonNull(clock, "clock must not be null"));
    }

    @Override
    public BitSet readBits(String key, long[] offsets, int count, Duration timeout) {
        return bits.readBits(key, offsets, count, timeout);
    }

    @Override
    public List<BitSet> readBitsMany(List<String> names, List<long[]> offsets, Duration timeout) {
        return bits.readBitsMany(names, offsets, timeout);
    }

    @Override
    public byte[] getRange(String key, long start, long end) {
        return bits.getRange(key, start, end);
    }

    @Override
    public List<AddReceipt> journalAndSetBitsMany(List<ShardAdds> adds) {
        return bits.journalAndSetBitsMany(adds);
    }

    @Override
    public void writeBitmap(String key, byte[] bitmap, Duration expiry) {
        loads.writeBitmap(key, bitmap, expiry);
    }

    @Override
    public long beginJournalLoad(JournalKeys journal, String token, byte[] mark, Duration ttl) {
        return loads.beginJournalLoad(journal, token, mark, ttl);
    }

    @Override
    public long[] replayJournal(Staging staging, JournalKeys journal, String list, long start, int count,
            boolean verifyUpload) {
        return loads.replayJournal(staging, journal, list, start, count, verifyUpload);
    }

    @Override
    public long swapIn(Staging staging, String live, JournalKeys journal, long tailStart, String metaKey,
            Map<String, String> meta) {
        return loads.swapIn(staging, live, journal, tailStart, metaKey, meta);
    }

    @Override
    public long maintainJournal(JournalKeys journal, Duration retention, long capacity) {
        return loads.maintainJournal(journal, retention, capacity);
    }

    @Override
    public long listLength(String key) {
        return loads.listLength(key);
    }

    @Override
    public void listBlankIfEquals(String key, long index, byte[] value) {
        loads.listBlankIfEquals(key, index, value);
    }

    @Override
    public CompletableFuture<Boolean> announceAsync(String metaKey, String channel, byte[] message) {
        return events.announceAsync(metaKey, channel, message);
    }

    @Override
    public long[] renewTrust(String metaKey, String channel, byte[] ping, Duration ttl) {
        return events.renewTrust(metaKey, channel, ping, ttl);
    }

    @Override
    public void publish(String channel, byte[] message) {
        events.publish(channel, message);
    }

    @Override
    public Subscription subscribe(String channel, ChannelListener listener) {
        return events.subscribe(channel, listener);
    }

    @Override
    public Heartbeat heartbeat(String instancesKey, String generationsKey, String invalidatedKey, String instanceId,
            String instanceValue, List<String> generations, List<String> invalidated) {
        return keys.write(() -> {
            String now = Long.toString(keys.now());
            keys.hashToWrite(instancesKey).put(instanceId, instanceValue + "|" + now);
            generations.forEach(generation -> keys.hashToWrite(generationsKey).put(generation, now));
            invalidated.forEach(live -> keys.hashToWrite(invalidatedKey).put(live, now));
            return new Heartbeat(Long.parseLong(now), copy(instancesKey), copy(generationsKey), copy(invalidatedKey));
        });
    }

    @Override
    public Registry readRegistry(String generationsKey, String invalidatedKey) {
        return keys.read(() -> new Registry(keys.now(), copy(generationsKey), copy(invalidatedKey)));
    }

    @Override
    public long timeMillis(String slotKey) {
        return keys.now();
    }

    @Override
    public CompletableFuture<Boolean> rememberMissAsync(String missKey, String scope, String addedKey,
            String metaKey, Duration ttl, long sendByNanos) {
        return misses.rememberMissAsync(missKey, scope, addedKey, metaKey, ttl, sendByNanos);
    }

    @Override
    public CompletableFuture<Boolean> missRememberedAsync(String missKey, String scope, String metaKey,
            Duration timeout) {
        return misses.missRememberedAsync(missKey, scope, metaKey, timeout);
    }

    @Override
    public CompletableFuture<Void> forgetMissesIfInUseAsync(String metaKey, List<String> missKeys,
            List<String> addedKeys, Duration window) {
        return misses.forgetMissesIfInUseAsync(metaKey, missKeys, addedKeys, window);
    }

    @Override
    public CompletableFuture<Void> forgetMissesAsync(List<String> missKeys, List<String> addedKeys,
            Duration window) {
        return misses.forgetMissesAsync(missKeys, addedKeys, window);
    }

    @Override
    public void hashSet(String key, String field, String value) {
        primitives.hashSet(key, field, value);
    }

    @Override
    public long hashIncrement(String key, String field, long by) {
        return primitives.hashIncrement(key, field, by);
    }

    @Override
    public void hashDelete(String key, String field) {
        primitives.hashDelete(key, field);
    }

    @Override
    public void clearBit(String key, long offset) {
        primitives.clearBit(key, offset);
    }

    @Override
    public long bitCount(String key) {
        return primitives.bitCount(key);
    }

    @Override
    public long length(String key) {
        return primitives.length(key);
    }

    @Override
    public void delete(String... names) {
        primitives.delete(names);
    }

    @Override
    public boolean setIfAbsent(String key, String value, Duration ttl) {
        return primitives.setIfAbsent(key, value, ttl);
    }

    @Override
    public boolean expireIfEquals(String key, String value, Duration ttl) {
        return primitives.expireIfEquals(key, value, ttl);
    }

    @Override
    public boolean deleteIfEquals(String key, String value) {
        return primitives.deleteIfEquals(key, value);
    }

    @Override
    public Optional<String> get(String key) {
        return primitives.get(key);
    }

    @Override
    public Map<String, String> hashGetAll(String key) {
        return primitives.hashGetAll(key);
    }

    @Override
    public CircuitBreaker.State circuitState() {
        return CircuitBreaker.State.CLOSED;
    }

    /** {@code PUBSUB NUMSUB channel}: how many subscriptions hear {@code channel}. */
    int subscribers(String channel) {
        return events.subscribers(channel);
    }

    /** Ends the subscriptions and stops delivering messages; the keys stay readable and writable. */
    @Override
    public void close() {
        events.close();
    }

    private Map<String, String> copy(String key) {
        return new LinkedHashMap<>(keys.hash(key));
    }
}
