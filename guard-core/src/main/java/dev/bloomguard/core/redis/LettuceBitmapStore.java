package dev.bloomguard.core.redis;

import static dev.bloomguard.core.internal.Arguments.checkArgument;
import static dev.bloomguard.core.redis.BitCommands.BITFIELD_RO;
import static dev.bloomguard.core.redis.BitCommands.bytes;
import static dev.bloomguard.core.redis.BitCommands.journalAndSetBitsCommands;
import static dev.bloomguard.core.redis.BitCommands.receipts;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;

import dev.bloomguard.core.redis.BitCommands.BitsOutput;

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
 * <p>This class holds the checks' and adds' commands and the small primitives; every call goes
 * through one execution path, {@link RedisCalls} (breaker, connection, deadline, error
 * classification), and every script through {@link ScriptCalls} ({@code EVALSHA}, whole on
 * {@code NOSCRIPT}). The commands of a role live with it: {@link JournalCommands} (loads and the
 * journal), {@link MissCommands} (remembered misses), {@link RegistryCommands} (rolling changes),
 * {@link BitCommands} (the bit commands and an add's pipeline).
 *
 * <p>Size: still over 300 lines (371), because it implements the whole {@link BitmapStore}, every
 * role's methods at least as a one-line delegation. Next: let {@link MissCommands},
 * {@link JournalCommands} and {@link RegistryCommands} implement their role interfaces
 * ({@link MissStore}, {@link LoadStore}, {@link RegistryStore}) and compose the store from them.
 */
public final class LettuceBitmapStore implements BitmapStore {

    /** The scripts (resources in {@code lua/}, each saying what it takes and answers), sent with {@code EVALSHA}. */
    private static final LuaScript BLANK_IF_EQUALS = LuaScript.of("blank-if-equals");
    private static final LuaScript CLEAR_BIT_IF_EXISTS = LuaScript.of("clear-bit-if-exists");
    private static final LuaScript EXPIRE_IF_EQUALS = LuaScript.of("expire-if-equals");
    private static final LuaScript DELETE_IF_EQUALS = LuaScript.of("delete-if-equals");
    private static final LuaScript ANNOUNCE = LuaScript.of("now-function", "announce");
    private static final LuaScript TRUST = LuaScript.of("now-function", "trust");

    private final ConcurrentHashMap<String, byte[]> checkedKeys = new ConcurrentHashMap<>();
    private final LettuceConnections connections;
    private final Duration operationTimeout;
    private final RedisCalls calls;
    private final ScriptCalls scripts;
    private final MissCommands misses;
    private final JournalCommands loads;
    private final RegistryCommands registry;

    private LettuceBitmapStore(LettuceConnections connections, Duration operationTimeout, CircuitBreaker breaker) {
        this.connections = connections;
        this.operationTimeout = operationTimeout;
        this.calls = new RedisCalls(connections, breaker);
        this.scripts = new ScriptCalls(calls, operationTimeout);
        this.misses = new MissCommands(calls, scripts, operationTimeout);
        this.loads = new JournalCommands(calls, scripts, operationTimeout);
        this.registry = new RegistryCommands(calls, scripts, operationTimeout);
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
        BitfieldGetArgs args = new BitfieldGetArgs(checkedKey(key), offsets, count);
        return calls.call("BITFIELD_RO", timeout, commands -> List.of(commands.dispatch(BITFIELD_RO, new BitsOutput(), args)));
    }

    @Override
    public List<BitSet> readBitsMany(List<String> keys, List<long[]> offsets, Duration timeout) {
        if (keys.size() == 1) {
            return List.of(readBits(keys.get(0), offsets.get(0), offsets.get(0).length, timeout));
        }
        List<RedisFuture<BitSet>> replies = new ArrayList<>(keys.size());
        calls.call("BITFIELD_RO", timeout, commands -> {
            for (int i = 0; i < keys.size(); i++) {
                long[] probes = offsets.get(i);
                replies.add(commands.dispatch(BITFIELD_RO, new BitsOutput(),
                        new BitfieldGetArgs(checkedKey(keys.get(i)), probes, probes.length)));
            }
            return replies;
        });
        List<BitSet> answers = new ArrayList<>(replies.size());
        for (RedisFuture<BitSet> reply : replies) {
            answers.add(reply.toCompletableFuture().join());
        }
        return answers;
    }

    @Override
    public CompletableFuture<BitSet> readBitsAsync(String key, long[] offsets, int count, Duration timeout) {
        BitfieldGetArgs args = new BitfieldGetArgs(checkedKey(key), offsets, count);
        return calls.callAsync("BITFIELD_RO", timeout,
                commands -> List.of(commands.dispatch(BITFIELD_RO, new BitsOutput(), args)));
    }

    @Override
    public CompletableFuture<List<BitSet>> readBitsManyAsync(List<String> keys, List<long[]> offsets,
            Duration timeout) {
        List<RedisFuture<BitSet>> replies = new ArrayList<>(keys.size());
        return calls.<BitSet>callAsync("BITFIELD_RO", timeout, commands -> {
            for (int i = 0; i < keys.size(); i++) {
                long[] probes = offsets.get(i);
                replies.add(commands.dispatch(BITFIELD_RO, new BitsOutput(),
                        new BitfieldGetArgs(checkedKey(keys.get(i)), probes, probes.length)));
            }
            return replies;
        }).thenApply(last -> replies.stream().map(reply -> reply.toCompletableFuture().join()).toList());
    }

    @Override
    public CompletableFuture<List<AddReceipt>> journalAndSetBitsManyAsync(List<ShardAdds> adds) {
        List<RedisFuture<?>> replies = new ArrayList<>();
        return calls.callAsync("RPUSH+BITFIELD SET", operationTimeout, commands -> journalAndSetBitsCommands(commands, adds,
                replies)).thenApply(last -> receipts(adds, replies));
    }

    @Override
    public CompletableFuture<Boolean> announceAsync(String metaKey, String channel, byte[] message) {
        return scripts.<Long>scriptAsync("announce", operationTimeout, ANNOUNCE, ScriptOutputType.INTEGER,
                new byte[][] { bytes(metaKey) }, bytes(channel), message).thenApply(published -> published != null && published == 1);
    }

    @Override
    public long[] renewTrust(String metaKey, String channel, byte[] ping, Duration ttl) {
        List<Long> reply = scripts.script("trust", TRUST, ScriptOutputType.MULTI, new byte[][] { bytes(metaKey) }, bytes(channel),
                ping, bytes(Long.toString(ttl.toMillis())));
        return new long[] { reply.get(0), reply.get(1), reply.get(2) };
    }

    @Override
    public CompletableFuture<Void> publishAsync(String channel, byte[] message) {
        return calls.callAsync("PUBLISH", operationTimeout, commands -> List.of(commands.publish(bytes(channel), message)))
                .thenApply(receivers -> null);
    }

    @Override
    public List<AddReceipt> journalAndSetBitsMany(List<ShardAdds> adds) {
        List<RedisFuture<?>> replies = new ArrayList<>();
        calls.call("RPUSH+BITFIELD SET", operationTimeout, commands -> journalAndSetBitsCommands(commands, adds, replies));
        return receipts(adds, replies);
    }

    @Override
    public byte[] getRange(String key, long start, long end) {
        byte[] value = calls.call("GETRANGE", operationTimeout, commands -> List.of(commands.getrange(bytes(key), start, end)));
        return value == null ? new byte[0] : value;
    }

    @Override
    public void publish(String channel, byte[] message) {
        calls.call("PUBLISH", operationTimeout, commands -> List.of(commands.publish(bytes(channel), message)));
    }

    @Override
    public Subscription subscribe(String channel, ChannelListener listener) {
        try {
            return connections.subscribe(bytes(channel), listener);
        }
        catch (RuntimeException ex) {
            throw new BitmapStoreException("could not subscribe to " + channel + ": " + ex.getMessage(), ex);
        }
    }

    @Override
    public void hashSet(String key, String field, String value) {
        calls.call("HSET", operationTimeout, commands -> List.of(commands.hset(bytes(key), bytes(field), bytes(value))));
    }

    @Override
    public long hashIncrement(String key, String field, long by) {
        return calls.call("HINCRBY", operationTimeout, commands -> List.of(commands.hincrby(bytes(key), bytes(field), by)));
    }

    @Override
    public void hashDelete(String key, String field) {
        calls.call("HDEL", operationTimeout, commands -> List.of(commands.hdel(bytes(key), bytes(field))));
    }

    @Override
    public void clearBit(String key, long offset) {
        scripts.script("clear bit", CLEAR_BIT_IF_EXISTS, ScriptOutputType.INTEGER, new byte[][] { bytes(key) },
                bytes(Long.toString(offset)));
    }

    @Override
    public long bitCount(String key) {
        Long count = calls.call("BITCOUNT", operationTimeout, commands -> List.of(commands.bitcount(bytes(key))));
        return count == null ? 0 : count;
    }

    @Override
    public long length(String key) {
        Long length = calls.call("STRLEN", operationTimeout, commands -> List.of(commands.strlen(bytes(key))));
        return length == null ? 0 : length;
    }

    @Override
    public long listLength(String key) {
        Long length = calls.call("LLEN", operationTimeout, commands -> List.of(commands.llen(bytes(key))));
        return length == null ? 0 : length;
    }

    @Override
    public void listBlankIfEquals(String key, long index, byte[] value) {
        scripts.script("blank", BLANK_IF_EQUALS, ScriptOutputType.INTEGER, new byte[][] { bytes(key) },
                bytes(Long.toString(index)), value);
    }

    @Override
    public void delete(String... keys) {
        byte[][] raw = Arrays.stream(keys).map(BitCommands::bytes).toArray(byte[][]::new);
        calls.call("DEL", operationTimeout, commands -> List.of(commands.del(raw)));
    }

    @Override
    public boolean setIfAbsent(String key, String value, Duration ttl) {
        String reply = calls.call("SET NX", operationTimeout,
                commands -> List.of(commands.set(bytes(key), bytes(value),
                        ttl == null ? SetArgs.Builder.nx() : SetArgs.Builder.nx().px(ttl))));
        return "OK".equals(reply);
    }

    @Override
    public boolean expireIfEquals(String key, String value, Duration ttl) {
        Long reply = scripts.script("expire", EXPIRE_IF_EQUALS, ScriptOutputType.INTEGER, new byte[][] { bytes(key) },
                bytes(value), bytes(Long.toString(ttl.toMillis())));
        return reply != null && reply == 1;
    }

    @Override
    public boolean deleteIfEquals(String key, String value) {
        Long reply = scripts.script("delete", DELETE_IF_EQUALS, ScriptOutputType.INTEGER, new byte[][] { bytes(key) },
                bytes(value));
        return reply != null && reply == 1;
    }

    @Override
    public Optional<String> get(String key) {
        byte[] value = calls.call("GET", operationTimeout, commands -> List.of(commands.get(bytes(key))));
        return Optional.ofNullable(value).map(raw -> new String(raw, StandardCharsets.UTF_8));
    }

    @Override
    public Map<String, String> hashGetAll(String key) {
        Map<byte[], byte[]> raw = calls.call("HGETALL", operationTimeout, commands -> List.of(commands.hgetall(bytes(key))));
        Map<String, String> result = new LinkedHashMap<>();
        if (raw != null) {
            raw.forEach((field, value) -> result.put(new String(field, StandardCharsets.UTF_8),
                    new String(value, StandardCharsets.UTF_8)));
        }
        return result;
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
    public CircuitBreaker.State circuitState() {
        return calls.circuitState();
    }

    /**
     * The encoded name of a key that checks read: the same few live-shard keys on every call, so
     * encoded once rather than per check. Only checked keys come here, never staging keys.
     */
    private byte[] checkedKey(String key) {
        byte[] raw = checkedKeys.get(key);
        if (raw == null) {
            raw = bytes(key);
            checkedKeys.putIfAbsent(key, raw);
        }
        return raw;
    }
}
