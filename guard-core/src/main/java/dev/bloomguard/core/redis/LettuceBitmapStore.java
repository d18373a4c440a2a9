package dev.bloomguard.core.redis;

import static dev.bloomguard.core.internal.Arguments.checkArgument;

import java.time.Duration;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * {@link BitmapStore} over Lettuce connections from {@link LettuceConnections}: a plain
 * {@code RedisClient}'s, or those Spring Data Redis manages, adapted by the starter.
 *
 * <p>Commands go through Lettuce's asynchronous API so that each call is bounded by its own
 * timeout, independent of the client's command timeout, and a check is exactly one
 * {@code BITFIELD_RO}: no script, no transaction, no configuration read. Two things keep a
 * Redis outage cheap for callers: the shared connection is obtained in the background (a
 * caller waits at most its timeout for it, never the connect timeout), and a
 * {@link CircuitBreaker} fails calls at once after repeated failures.
 *
 * <p>This class only composes the store: each role's methods forward to the commands of that role,
 * {@link CheckCommands} ({@link CheckStore}), {@link AddCommands} ({@link AddStore}),
 * {@link JournalCommands} ({@link LoadStore}), {@link EventCommands} ({@link EventStore}),
 * {@link RegistryCommands} ({@link RegistryStore}), {@link MissCommands} ({@link MissStore}) and
 * {@link KeyCommands} ({@link KeyStore}). All of them share one execution path, {@link RedisCalls}
 * (breaker, connection, deadline, error classification), and one {@link ScriptCalls} for scripts
 * ({@code EVALSHA}, whole on {@code NOSCRIPT}), so that the breaker counts every call of the store.
 */
public final class LettuceBitmapStore implements BitmapStore {

    private final CircuitBreaker breaker;
    private final RedisCalls calls;
    private final CheckStore checks;
    private final AddStore writes;
    private final LoadStore loads;
    private final EventStore events;
    private final RegistryStore registry;
    private final MissStore misses;
    private final KeyStore primitives;

    private LettuceBitmapStore(LettuceConnections connections, Duration operationTimeout, CircuitBreaker breaker) {
        this.breaker = breaker;
        this.calls = new RedisCalls(connections, breaker);
        ScriptCalls scripts = new ScriptCalls(calls, operationTimeout);
        this.checks = new CheckCommands(calls, operationTimeout);
        this.writes = new AddCommands(calls, operationTimeout);
        this.loads = new JournalCommands(calls, scripts, operationTimeout);
        this.events = new EventCommands(connections, calls, scripts, operationTimeout);
        this.registry = new RegistryCommands(calls, scripts, operationTimeout);
        this.misses = new MissCommands(calls, scripts, operationTimeout);
        this.primitives = new KeyCommands(calls, scripts, operationTimeout);
    }

    /** A store with a breaker of {@link CircuitBreaker.Settings#defaults()}. */
    public static LettuceBitmapStore create(LettuceConnections connections, Duration operationTimeout) {
        return create(connections, operationTimeout, CircuitBreaker.create(CircuitBreaker.Settings.defaults()));
    }

    /**
     * @param connections where connections come from; the store never closes them, their owner does
     * @param operationTimeout bound on writes, uploads and swaps; checks carry their own timeout
     */
    public static LettuceBitmapStore create(LettuceConnections connections, Duration operationTimeout,
            CircuitBreaker breaker) {
        checkArgument(connections != null, "connections must not be null");
        checkArgument(operationTimeout != null && operationTimeout.toNanos() > 0,
                "operationTimeout (%s) must be positive", operationTimeout);
        checkArgument(breaker != null, "breaker must not be null");
        return new LettuceBitmapStore(connections, operationTimeout, breaker);
    }

    @Override
    public BitSet readBits(String key, long[] offsets, int count, Duration timeout) {
        return checks.readBits(key, offsets, count, timeout);
    }

    @Override
    public List<BitSet> readBitsMany(List<String> keys, List<long[]> offsets, Duration timeout) {
        return checks.readBitsMany(keys, offsets, timeout);
    }

    @Override
    public CompletableFuture<BitSet> readBitsAsync(String key, long[] offsets, int count, Duration timeout) {
        return checks.readBitsAsync(key, offsets, count, timeout);
    }

    @Override
    public CompletableFuture<List<BitSet>> readBitsManyAsync(List<String> keys, List<long[]> offsets,
            Duration timeout) {
        return checks.readBitsManyAsync(keys, offsets, timeout);
    }

    @Override
    public byte[] getRange(String key, long start, long end) {
        return checks.getRange(key, start, end);
    }

    @Override
    public CompletableFuture<List<AddReceipt>> journalAndSetBitsManyAsync(List<ShardAdds> adds) {
        return writes.journalAndSetBitsManyAsync(adds);
    }

    @Override
    public List<AddReceipt> journalAndSetBitsMany(List<ShardAdds> adds) {
        return writes.journalAndSetBitsMany(adds);
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
    public CompletableFuture<Void> publishAsync(String channel, byte[] message) {
        return events.publishAsync(channel, message);
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
        return registry.heartbeat(instancesKey, generationsKey, invalidatedKey, instanceId, instanceValue, generations, invalidated);
    }

    @Override
    public Registry readRegistry(String generationsKey, String invalidatedKey) {
        return registry.readRegistry(generationsKey, invalidatedKey);
    }

    @Override
    public long timeMillis(String slotKey) {
        return registry.timeMillis(slotKey);
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
    public void hashDelete(String key, String field, Duration timeout) {
        primitives.hashDelete(key, field, timeout);
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
    public void delete(String... keys) {
        primitives.delete(keys);
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
        return calls.circuitState();
    }

    @Override
    public CircuitBreaker.Subscription onCircuitTransition(CircuitBreaker.TransitionListener listener) {
        return breaker.onTransition(listener);
    }
}
