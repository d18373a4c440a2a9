package dev.bloomguard.core.redis;

import static dev.bloomguard.core.internal.Arguments.checkArgument;

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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;

import dev.bloomguard.core.misses.MissKeys;

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
 * <p>Size: one store behind a 20-method SPI; issue 15 splits it into role interfaces with one
 * execution path. Its scripts are resources ({@link LuaScript}), sent with {@code EVALSHA}.
 */
public final class LettuceBitmapStore implements BitmapStore {

    private static final Logger log = LoggerFactory.getLogger(LettuceBitmapStore.class);

    private static final int MAX_SETS_PER_COMMAND = 30_000;
    private static final int UPLOAD_CHUNK_BYTES = 8 * 1024 * 1024;

    private static final ProtocolKeyword BITFIELD_RO = keyword("BITFIELD_RO");
    private static final ProtocolKeyword BITFIELD = keyword("BITFIELD");
    private static final byte[] SET = "SET".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] U1 = "u1".getBytes(StandardCharsets.US_ASCII);

    /** The scripts (resources in {@code lua/}, each saying what it takes and answers), sent with {@code EVALSHA}. */
    private static final LuaScript REPLAY_SCRIPT = LuaScript.of("replay-function", "replay-journal");
    private static final LuaScript SWAP_SCRIPT = LuaScript.of("replay-function", "swap");
    private static final LuaScript MAINTAIN_SCRIPT = LuaScript.of("maintain-journal");
    private static final LuaScript HEARTBEAT_SCRIPT = LuaScript.of("heartbeat");
    private static final LuaScript REGISTRY_SCRIPT = LuaScript.of("now-function", "registry");
    private static final LuaScript TIME_SCRIPT = LuaScript.of("now-function", "time");
    private static final LuaScript BEGIN_LOAD_SCRIPT = LuaScript.of("begin-load");
    private static final LuaScript BLANK_IF_EQUALS = LuaScript.of("blank-if-equals");
    private static final LuaScript CLEAR_BIT_IF_EXISTS = LuaScript.of("clear-bit-if-exists");
    private static final LuaScript EXPIRE_IF_EQUALS = LuaScript.of("expire-if-equals");
    private static final LuaScript DELETE_IF_EQUALS = LuaScript.of("delete-if-equals");
    private static final LuaScript REMEMBER_MISS = LuaScript.of("now-function", "remember-miss");
    private static final LuaScript MISS_REMEMBERED = LuaScript.of("now-function", "miss-remembered");
    private static final LuaScript FORGET_MISSES_IF_IN_USE = LuaScript.of("now-function", "forget-misses-if-in-use");
    private static final LuaScript ANNOUNCE = LuaScript.of("now-function", "announce");
    private static final LuaScript TRUST = LuaScript.of("now-function", "trust");

    /**
     * Runs what must not run on a Redis I/O thread or the JDK's one timeout thread: blocking calls
     * for asynchronous callers when there is no shared connection to write to, and the completion
     * of timed-out asynchronous calls, whose callers' continuations would otherwise delay every
     * other timeout in the JVM.
     */
    private static final Executor WORKERS = java.util.concurrent.Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "bloomguard-redis-worker");
        thread.setDaemon(true);
        return thread;
    });

    private final java.util.concurrent.ConcurrentHashMap<String, byte[]> checkedKeys = new java.util.concurrent.ConcurrentHashMap<>();
    private final LettuceConnections connections;
    private final Duration operationTimeout;
    private final CircuitBreaker breaker;
    private final Executor connector;
    /** Set once Redis refused {@code EVALSHA} to this user: see {@link #sendWhole}. */
    private volatile boolean evalshaRefused;
    private final AtomicReference<CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>>> sharedConnection =
            new AtomicReference<>();

    private LettuceBitmapStore(LettuceConnections connections, Duration operationTimeout, CircuitBreaker breaker) {
        this.connections = connections;
        this.operationTimeout = operationTimeout;
        this.breaker = breaker;
        this.connector = runnable -> {
            Thread thread = new Thread(runnable, "bloomguard-redis-connect");
            thread.setDaemon(true);
            thread.start();
        };
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
        return call("BITFIELD_RO", timeout, commands -> List.of(commands.dispatch(BITFIELD_RO, new BitsOutput(), args)));
    }

    @Override
    public List<BitSet> readBitsMany(List<String> keys, List<long[]> offsets, Duration timeout) {
        if (keys.size() == 1) {
            return List.of(readBits(keys.get(0), offsets.get(0), offsets.get(0).length, timeout));
        }
        List<RedisFuture<BitSet>> replies = new ArrayList<>(keys.size());
        call("BITFIELD_RO", timeout, commands -> {
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
        return callAsync("BITFIELD_RO", timeout,
                commands -> List.of(commands.dispatch(BITFIELD_RO, new BitsOutput(), args)));
    }

    @Override
    public CompletableFuture<List<BitSet>> readBitsManyAsync(List<String> keys, List<long[]> offsets,
            Duration timeout) {
        List<RedisFuture<BitSet>> replies = new ArrayList<>(keys.size());
        return this.<BitSet>callAsync("BITFIELD_RO", timeout, commands -> {
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
        return callAsync("RPUSH+BITFIELD SET", operationTimeout, commands -> journalAndSetBitsCommands(commands, adds,
                replies)).thenApply(last -> receipts(adds, replies));
    }

    @Override
    public CompletableFuture<Boolean> announceAsync(String metaKey, String channel, byte[] message) {
        return this.<Long>scriptAsync("announce", operationTimeout, ANNOUNCE, ScriptOutputType.INTEGER,
                new byte[][] { bytes(metaKey) }, bytes(channel), message).thenApply(published -> published != null && published == 1);
    }

    @Override
    public long[] renewTrust(String metaKey, String channel, byte[] ping, Duration ttl) {
        List<Long> reply = script("trust", TRUST, ScriptOutputType.MULTI, new byte[][] { bytes(metaKey) }, bytes(channel),
                ping, bytes(Long.toString(ttl.toMillis())));
        return new long[] { reply.get(0), reply.get(1), reply.get(2) };
    }

    @Override
    public CompletableFuture<Void> publishAsync(String channel, byte[] message) {
        return callAsync("PUBLISH", operationTimeout, commands -> List.of(commands.publish(bytes(channel), message)))
                .thenApply(receivers -> null);
    }

    @Override
    public List<AddReceipt> journalAndSetBitsMany(List<ShardAdds> adds) {
        List<RedisFuture<?>> replies = new ArrayList<>();
        call("RPUSH+BITFIELD SET", operationTimeout, commands -> journalAndSetBitsCommands(commands, adds, replies));
        return receipts(adds, replies);
    }

    /** Dispatches each shard's RPUSH, BITFIELD SETs and INCRBY, collecting every reply in {@code replies}. */
    private static List<RedisFuture<?>> journalAndSetBitsCommands(RedisClusterAsyncCommands<byte[], byte[]> commands,
            List<ShardAdds> adds, List<RedisFuture<?>> replies) {
        for (ShardAdds shard : adds) {
            replies.add(commands.rpush(bytes(shard.journalKey()), shard.entries().toArray(new byte[0][])));
            replies.addAll(bitfieldSets(commands, bytes(shard.bitmapKey()), shard.offsets(), shard.offsets().length));
            if (shard.countKey() != null) {
                replies.add(commands.hincrby(bytes(shard.countKey()), bytes(shard.countField()),
                        shard.entries().size()));
            }
        }
        return replies;
    }

    /** Reads each shard's journal length and add count out of the replies, all completed by now. */
    private static List<AddReceipt> receipts(List<ShardAdds> adds, List<RedisFuture<?>> replies) {
        List<AddReceipt> receipts = new ArrayList<>(adds.size());
        int reply = 0;
        for (ShardAdds shard : adds) {
            long length = (Long) replies.get(reply).toCompletableFuture().join();
            reply += 1 + (shard.offsets().length + MAX_SETS_PER_COMMAND - 1) / MAX_SETS_PER_COMMAND;
            long count = -1;
            if (shard.countKey() != null) {
                count = (Long) replies.get(reply++).toCompletableFuture().join();
            }
            receipts.add(new AddReceipt(length, count));
        }
        return receipts;
    }

    private static List<RedisFuture<?>> bitfieldSets(RedisClusterAsyncCommands<byte[], byte[]> commands, byte[] key,
            long[] offsets, int count) {
        List<RedisFuture<?>> replies = new ArrayList<>();
        for (int start = 0; start < count; start += MAX_SETS_PER_COMMAND) {
            CommandArgs<byte[], byte[]> args = new CommandArgs<>(ByteArrayCodec.INSTANCE).addKey(key);
            for (int i = start; i < Math.min(count, start + MAX_SETS_PER_COMMAND); i++) {
                args.add(SET).add(U1).add(offsets[i]).add(1);
            }
            replies.add(commands.dispatch(BITFIELD, new BitsOutput(), args));
        }
        return replies;
    }

    @Override
    public byte[] getRange(String key, long start, long end) {
        byte[] value = call("GETRANGE", operationTimeout, commands -> List.of(commands.getrange(bytes(key), start, end)));
        return value == null ? new byte[0] : value;
    }

    @Override
    public void publish(String channel, byte[] message) {
        call("PUBLISH", operationTimeout, commands -> List.of(commands.publish(bytes(channel), message)));
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
    public void writeBitmap(String key, byte[] bitmap, Duration expiry) {
        byte[] rawKey = bytes(key);
        int first = Math.min(bitmap.length, UPLOAD_CHUNK_BYTES);
        call("SET", operationTimeout,
                commands -> List.of(commands.set(rawKey, Arrays.copyOf(bitmap, first), SetArgs.Builder.px(expiry))));
        for (int offset = first; offset < bitmap.length; offset += UPLOAD_CHUNK_BYTES) {
            byte[] chunk = Arrays.copyOfRange(bitmap, offset, Math.min(bitmap.length, offset + UPLOAD_CHUNK_BYTES));
            long at = offset;
            call("SETRANGE", operationTimeout, commands -> List.of(commands.setrange(rawKey, at, chunk)));
        }
    }

    @Override
    public long beginJournalLoad(JournalKeys journal, String token, byte[] mark, Duration ttl) {
        Long length = script("begin load", BEGIN_LOAD_SCRIPT, ScriptOutputType.INTEGER,
                new byte[][] { bytes(journal.loading()), bytes(journal.current()) }, bytes(token),
                bytes(Long.toString(ttl.toMillis())), mark);
        return length - 1;
    }

    @Override
    public long[] replayJournal(Staging staging, JournalKeys journal, String list, long start, int count,
            boolean verifyUpload) {
        byte[][] keys = { bytes(staging.key()), bytes(list), bytes(journal.current()), bytes(journal.loading()) };
        List<byte[]> arguments = new ArrayList<>(List.of(bytes(staging.token()), bytes(Long.toString(start)),
                bytes(Integer.toString(count)), staging.journalMark(), bytes(Long.toString(staging.markIndex()))));
        if (verifyUpload) {
            arguments.add(bytes(Long.toString(staging.length())));
            arguments.add(bytes(Long.toString(staging.population())));
        }
        List<Long> reply = script("replay", REPLAY_SCRIPT, ScriptOutputType.MULTI, keys, arguments.toArray(byte[][]::new));
        return new long[] { reply.get(0), reply.get(1) };
    }

    @Override
    public long swapIn(Staging staging, String live, JournalKeys journal, long tailStart, String metaKey,
            Map<String, String> meta) {
        byte[][] keys = { bytes(staging.key()), bytes(live), bytes(journal.current()), bytes(metaKey),
                bytes(journal.loading()), bytes(journal.dropped()) };
        List<byte[]> arguments = new ArrayList<>(List.of(bytes(staging.token()), bytes(Long.toString(staging.length())),
                staging.journalMark(), bytes(Long.toString(staging.markIndex())), bytes(Long.toString(tailStart))));
        meta.forEach((field, value) -> {
            arguments.add(bytes(field));
            arguments.add(bytes(value));
        });
        Long replayed = script("swap", SWAP_SCRIPT, ScriptOutputType.INTEGER, keys, arguments.toArray(byte[][]::new));
        return replayed == null ? STAGING_ALTERED : replayed;
    }

    @Override
    public long maintainJournal(JournalKeys journal, Duration retention, long capacity) {
        byte[][] keys = { bytes(journal.current()), bytes(journal.previous()), bytes(journal.since()),
                bytes(journal.dropped()), bytes(journal.loading()) };
        Long dropped = script("maintain journal", MAINTAIN_SCRIPT, ScriptOutputType.INTEGER, keys,
                bytes(Long.toString(retention.toMillis())), bytes(Long.toString(capacity)));
        return dropped == null ? 0 : dropped;
    }

    @Override
    public Heartbeat heartbeat(String instancesKey, String generationsKey, String invalidatedKey, String instanceId,
            String instanceValue, List<String> generations, List<String> invalidated) {
        byte[][] keys = { bytes(instancesKey), bytes(generationsKey), bytes(invalidatedKey) };
        List<byte[]> arguments = new ArrayList<>(List.of(bytes(instanceId), bytes(instanceValue),
                bytes(Integer.toString(generations.size()))));
        generations.forEach(generation -> arguments.add(bytes(generation)));
        invalidated.forEach(live -> arguments.add(bytes(live)));
        List<Object> reply = script("heartbeat", HEARTBEAT_SCRIPT, ScriptOutputType.MULTI, keys,
                arguments.toArray(byte[][]::new));
        return new Heartbeat((Long) reply.get(0), pairs(reply.get(1)), pairs(reply.get(2)), pairs(reply.get(3)));
    }

    @Override
    public Registry readRegistry(String generationsKey, String invalidatedKey) {
        byte[][] keys = { bytes(generationsKey), bytes(invalidatedKey) };
        List<Object> reply = script("read registry", REGISTRY_SCRIPT, ScriptOutputType.MULTI, keys);
        return new Registry((Long) reply.get(0), pairs(reply.get(1)), pairs(reply.get(2)));
    }

    @Override
    public void hashSet(String key, String field, String value) {
        call("HSET", operationTimeout, commands -> List.of(commands.hset(bytes(key), bytes(field), bytes(value))));
    }

    /** A flat HGETALL reply as a map. */
    private static Map<String, String> pairs(Object flat) {
        List<?> items = (List<?>) flat;
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i + 1 < items.size(); i += 2) {
            map.put(new String((byte[]) items.get(i), StandardCharsets.UTF_8),
                    new String((byte[]) items.get(i + 1), StandardCharsets.UTF_8));
        }
        return map;
    }

    @Override
    public long timeMillis(String slotKey) {
        Long now = script("time", TIME_SCRIPT, ScriptOutputType.INTEGER, new byte[][] { bytes(slotKey) });
        return now;
    }

    @Override
    public long hashIncrement(String key, String field, long by) {
        return call("HINCRBY", operationTimeout, commands -> List.of(commands.hincrby(bytes(key), bytes(field), by)));
    }

    @Override
    public void hashDelete(String key, String field) {
        call("HDEL", operationTimeout, commands -> List.of(commands.hdel(bytes(key), bytes(field))));
    }

    @Override
    public void clearBit(String key, long offset) {
        script("clear bit", CLEAR_BIT_IF_EXISTS, ScriptOutputType.INTEGER, new byte[][] { bytes(key) },
                bytes(Long.toString(offset)));
    }

    @Override
    public long bitCount(String key) {
        Long count = call("BITCOUNT", operationTimeout, commands -> List.of(commands.bitcount(bytes(key))));
        return count == null ? 0 : count;
    }

    @Override
    public long length(String key) {
        Long length = call("STRLEN", operationTimeout, commands -> List.of(commands.strlen(bytes(key))));
        return length == null ? 0 : length;
    }

    @Override
    public long listLength(String key) {
        Long length = call("LLEN", operationTimeout, commands -> List.of(commands.llen(bytes(key))));
        return length == null ? 0 : length;
    }

    @Override
    public void listBlankIfEquals(String key, long index, byte[] value) {
        script("blank", BLANK_IF_EQUALS, ScriptOutputType.INTEGER, new byte[][] { bytes(key) },
                bytes(Long.toString(index)), value);
    }

    @Override
    public void delete(String... keys) {
        byte[][] raw = java.util.Arrays.stream(keys).map(LettuceBitmapStore::bytes).toArray(byte[][]::new);
        call("DEL", operationTimeout, commands -> List.of(commands.del(raw)));
    }

    @Override
    public boolean setIfAbsent(String key, String value, Duration ttl) {
        String reply = call("SET NX", operationTimeout,
                commands -> List.of(commands.set(bytes(key), bytes(value),
                        ttl == null ? SetArgs.Builder.nx() : SetArgs.Builder.nx().px(ttl))));
        return "OK".equals(reply);
    }

    @Override
    public boolean expireIfEquals(String key, String value, Duration ttl) {
        Long reply = script("expire", EXPIRE_IF_EQUALS, ScriptOutputType.INTEGER, new byte[][] { bytes(key) },
                bytes(value), bytes(Long.toString(ttl.toMillis())));
        return reply != null && reply == 1;
    }

    @Override
    public boolean deleteIfEquals(String key, String value) {
        Long reply = script("delete", DELETE_IF_EQUALS, ScriptOutputType.INTEGER, new byte[][] { bytes(key) },
                bytes(value));
        return reply != null && reply == 1;
    }

    @Override
    public Optional<String> get(String key) {
        byte[] value = call("GET", operationTimeout, commands -> List.of(commands.get(bytes(key))));
        return Optional.ofNullable(value).map(raw -> new String(raw, StandardCharsets.UTF_8));
    }

    @Override
    public Map<String, String> hashGetAll(String key) {
        Map<byte[], byte[]> raw = call("HGETALL", operationTimeout, commands -> List.of(commands.hgetall(bytes(key))));
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
        byte[][] keys = { bytes(missKey), bytes(addedKey), bytes(metaKey) };
        byte[][] arguments = { bytes(scope), bytes(Long.toString(ttl.toMillis())),
                bytes(Long.toString(MissKeys.ADDED_WINDOW.toMillis())) };
        return this.<Long>callAsync("remember miss", operationTimeout,
                commands -> List.of(rememberUnlessLate(commands, sendByNanos, false, keys, arguments)))
                .exceptionallyCompose(error -> sendWhole(error)
                        ? this.<Long>callAsync("remember miss", operationTimeout,
                                commands -> List.of(rememberUnlessLate(commands, sendByNanos, true, keys, arguments)))
                        : CompletableFuture.failedFuture(error))
                .thenApply(reply -> reply != null && reply == 1);
    }

    /**
     * The remember; or, once it is too late to be sure that an add's mark would still refuse it,
     * what answers "not remembered" (decided as it is sent, so again when it is sent again).
     */
    private RedisFuture<Long> rememberUnlessLate(RedisClusterAsyncCommands<byte[], byte[]> commands, long sendByNanos,
            boolean whole, byte[][] keys, byte[][] arguments) {
        if (System.nanoTime() - sendByNanos > 0) {
            return commands.eval("return 0", ScriptOutputType.INTEGER);
        }
        return send(commands, REMEMBER_MISS, whole, ScriptOutputType.INTEGER, keys, arguments);
    }

    @Override
    public CompletableFuture<Boolean> missRememberedAsync(String missKey, String scope, String metaKey,
            Duration timeout) {
        return this.<Long>scriptAsync("miss remembered", timeout, MISS_REMEMBERED, ScriptOutputType.INTEGER,
                new byte[][] { bytes(missKey), bytes(metaKey) }, bytes(scope)).thenApply(reply -> reply != null && reply == 1);
    }

    @Override
    public CompletableFuture<Void> forgetMissesIfInUseAsync(String metaKey, List<String> missKeys,
            List<String> addedKeys, Duration window) {
        checkArgument(missKeys.size() == addedKeys.size(), "one added key per miss key");
        if (missKeys.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        byte[][] keys = new byte[1 + 2 * missKeys.size()][];
        keys[0] = bytes(metaKey);
        for (int i = 0; i < missKeys.size(); i++) {
            keys[1 + 2 * i] = bytes(addedKeys.get(i));
            keys[2 + 2 * i] = bytes(missKeys.get(i));
        }
        return this.<Long>scriptAsync("forget misses", operationTimeout, FORGET_MISSES_IF_IN_USE, ScriptOutputType.INTEGER,
                keys, bytes(Long.toString(window.toMillis()))).thenApply(done -> null);
    }

    @Override
    public CompletableFuture<Void> forgetMissesAsync(List<String> missKeys, List<String> addedKeys,
            Duration window) {
        checkArgument(addedKeys.isEmpty() || missKeys.size() == addedKeys.size(), "one added key per miss key");
        if (missKeys.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        byte[] one = bytes("1");
        return callAsync("SET+DEL forget misses", operationTimeout, commands -> {
            List<RedisFuture<?>> replies = new ArrayList<>(missKeys.size() + addedKeys.size());
            for (String added : addedKeys) {
                // Same connection and slot, so Redis runs them before the DEL: see the interface.
                replies.add(commands.set(bytes(added), one, SetArgs.Builder.px(window)));
            }
            replies.add(commands.del(missKeys.stream().map(LettuceBitmapStore::bytes).toArray(byte[][]::new)));
            return replies;
        }).thenApply(last -> null);
    }

    @Override
    public CircuitBreaker.State circuitState() {
        return breaker.state();
    }

    /**
     * Runs {@code script} with {@code EVALSHA}, and whole with {@code EVAL} once more when that
     * fails for want of the script ({@link #sendWhole}).
     */
    private <T> T script(String name, LuaScript script, ScriptOutputType type, byte[][] keys, byte[]... arguments) {
        try {
            return call(name, operationTimeout, commands -> List.of(send(commands, script, false, type, keys, arguments)));
        }
        catch (BitmapStoreException ex) {
            if (!sendWhole(ex)) {
                throw ex;
            }
            return call(name, operationTimeout, commands -> List.of(send(commands, script, true, type, keys, arguments)));
        }
    }

    /** {@link #script} without blocking the calling thread. */
    private <T> CompletableFuture<T> scriptAsync(String name, Duration timeout, LuaScript script, ScriptOutputType type,
            byte[][] keys, byte[]... arguments) {
        return this.<T>callAsync(name, timeout, commands -> List.of(send(commands, script, false, type, keys, arguments)))
                .exceptionallyCompose(error -> sendWhole(error)
                        ? this.<T>callAsync(name, timeout, commands -> List.of(send(commands, script, true, type, keys, arguments)))
                        : CompletableFuture.failedFuture(error));
    }

    private <T> RedisFuture<T> send(RedisClusterAsyncCommands<byte[], byte[]> commands, LuaScript script, boolean whole,
            ScriptOutputType type, byte[][] keys, byte[]... arguments) {
        return whole || evalshaRefused ? script.eval(commands, type, keys, arguments)
                : script.evalsha(commands, type, keys, arguments);
    }

    /**
     * Whether a script sent by its SHA-1 must go again whole: Redis no longer has it
     * ({@code NOSCRIPT}: a restart, a failover to a replica, {@code SCRIPT FLUSH}; sending it
     * whole caches it again), or the user may not {@code EVALSHA} (an ACL written for a release
     * that only sent {@code EVAL}), after which every script goes whole, said once.
     */
    private boolean sendWhole(Throwable error) {
        if (LuaScript.isNoScript(error)) {
            return true;
        }
        if (!LuaScript.isEvalshaDenied(error)) {
            return false;
        }
        if (!evalshaRefused) {
            evalshaRefused = true;
            log.warn("Redis refuses EVALSHA to this user: bloom-guard sends its scripts whole with EVAL instead, which"
                    + " costs Redis a parse per call; add +evalsha to the user's ACL (see the operator's guide)");
        }
        return true;
    }

    /**
     * Sends the commands {@code send} dispatches and waits for all their replies, the last
     * reply being the result. Timeouts and connection failures count against the circuit
     * breaker; an error reply ({@code OOM}, {@code READONLY}, {@code LOADING}) does not, since
     * Redis answered, and quickly.
     */
    @SuppressWarnings("unchecked")
    private <T> T call(String name, Duration timeout,
            Function<RedisClusterAsyncCommands<byte[], byte[]>, List<? extends RedisFuture<?>>> send) {
        if (!breaker.tryAcquire()) {
            throw new BitmapStoreException(name + " not sent: the circuit to Redis is open after failures in a row or too many failed or slow calls", null);
        }
        long started = System.nanoTime();
        long deadline = started + timeout.toNanos();
        try {
            T result = withCommands(timeout, commands -> {
                Object last = null;
                for (RedisFuture<?> reply : send.apply(commands)) {
                    last = await(reply, Math.max(0, deadline - System.nanoTime()), timeout, name);
                }
                return (T) last;
            });
            breaker.onSuccess(System.nanoTime() - started);
            return result;
        }
        catch (BitmapStoreException ex) {
            if (ex.getCause() instanceof RedisCommandExecutionException) {
                breaker.onSuccess(System.nanoTime() - started);
            }
            else {
                breaker.onFailure();
            }
            throw ex;
        }
        catch (RuntimeException ex) {
            breaker.onFailure();
            throw new BitmapStoreException(name + " failed: " + ex.getMessage(), ex);
        }
    }

    /**
     * {@link #call} without blocking the calling thread: the commands are written once the
     * shared connection is there, and the result completes on Lettuce's I/O thread, or with a
     * {@link BitmapStoreException} at {@code timeout}. The circuit breaker counts as for {@link #call}.
     * Without a shared native connection (a pooled configuration) there is no connection to
     * write to without blocking, so the blocking call runs on a worker thread instead.
     */
    @SuppressWarnings("unchecked")
    private <T> CompletableFuture<T> callAsync(String name, Duration timeout,
            Function<RedisClusterAsyncCommands<byte[], byte[]>, List<? extends RedisFuture<?>>> send) {
        if (!connections.isShared()) {
            CompletableFuture<T> pooled = CompletableFuture.<T>supplyAsync(() -> call(name, timeout, send), WORKERS)
                    .orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS);
            return pooled.exceptionallyComposeAsync(error -> CompletableFuture.failedFuture(unwrap(error) instanceof TimeoutException
                    ? new BitmapStoreException(name + " did not answer within " + timeout, unwrap(error)) : unwrap(error)),
                    WORKERS);
        }
        if (!breaker.tryAcquire()) {
            return CompletableFuture.failedFuture(
                    new BitmapStoreException(name + " not sent: the circuit to Redis is open after failures in a row or too many failed or slow calls", null));
        }
        long started = System.nanoTime();
        AtomicReference<List<? extends RedisFuture<?>>> sent = new AtomicReference<>(List.of());
        CompletableFuture<T> replies = sharedConnection().thenCompose(commands -> {
            List<? extends RedisFuture<?>> futures = send.apply(commands);
            sent.set(futures);
            if (futures.size() == 1) {
                return (CompletableFuture<T>) futures.get(0).toCompletableFuture();
            }
            CompletableFuture<?>[] all = futures.stream().map(RedisFuture::toCompletableFuture)
                    .toArray(CompletableFuture[]::new);
            return CompletableFuture.allOf(all).thenApply(done -> (T) all[all.length - 1].join());
        });
        replies.orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS);
        CompletableFuture<T> result = new CompletableFuture<>();
        replies.whenComplete((value, error) -> {
            if (error == null) {
                breaker.onSuccess(System.nanoTime() - started);
                result.complete(value);
                return;
            }
            Throwable cause = unwrap(error);
            if (cause instanceof RedisCommandExecutionException) {
                breaker.onSuccess(System.nanoTime() - started);
                result.completeExceptionally(new BitmapStoreException(name + " failed: " + cause.getMessage(), cause));
                return;
            }
            breaker.onFailure();
            if (cause instanceof TimeoutException) {
                sent.get().forEach(reply -> reply.cancel(false));
                WORKERS.execute(() -> result.completeExceptionally(
                        new BitmapStoreException(name + " did not answer within " + timeout, cause)));
            }
            else {
                result.completeExceptionally(new BitmapStoreException(name + " failed: " + cause.getMessage(), cause));
            }
        });
        return result;
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof java.util.concurrent.CompletionException && error.getCause() != null ? error.getCause()
                : error;
    }

    private <T> T withCommands(Duration timeout, Function<RedisClusterAsyncCommands<byte[], byte[]>, T> work) {
        if (connections.isShared()) {
            return work.apply(sharedCommands(timeout));
        }
        LettuceConnections.Lease lease;
        try {
            lease = connections.borrow();
        }
        catch (RuntimeException ex) {
            throw new BitmapStoreException("no Redis connection: " + ex.getMessage(), ex);
        }
        try {
            return work.apply(lease.commands());
        }
        finally {
            giveBack(lease);
        }
    }

    /**
     * The shared native connection, obtained once on a background thread: while Redis is
     * unreachable the first connect can take the whole connect timeout, and no caller should
     * wait longer than its own timeout for it. A closed connection is obtained afresh.
     */
    private RedisClusterAsyncCommands<byte[], byte[]> sharedCommands(Duration timeout) {
        try {
            return sharedConnection().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        }
        catch (TimeoutException ex) {
            throw new BitmapStoreException("no Redis connection within " + timeout, ex);
        }
        catch (ExecutionException ex) {
            throw new BitmapStoreException("no Redis connection: " + ex.getCause().getMessage(), ex.getCause());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new BitmapStoreException("interrupted while connecting to Redis", ex);
        }
    }

    /** The shared connection as it stands: done once connected; a failed or closed one is replaced by a fresh attempt. */
    private CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> sharedConnection() {
        CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> current = sharedConnection.get();
        if (current == null || current.isCompletedExceptionally() || (current.isDone() && closedForGood(current.join()))) {
            CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> fresh = new CompletableFuture<>();
            if (sharedConnection.compareAndSet(current, fresh)) {
                connector.execute(() -> {
                    try {
                        fresh.complete(connections.shared());
                    }
                    catch (RuntimeException ex) {
                        fresh.completeExceptionally(ex);
                    }
                });
            }
            current = sharedConnection.get();
        }
        return current;
    }

    /** True for a connection its owner has closed (reset or shut down), false for one that is merely reconnecting. */
    private static boolean closedForGood(RedisClusterAsyncCommands<byte[], byte[]> commands) {
        Object connection = commands instanceof RedisAsyncCommands<byte[], byte[]> standalone
                ? standalone.getStatefulConnection()
                : commands instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster
                        ? cluster.getStatefulConnection() : null;
        return connection instanceof RedisChannelHandler<?, ?> handler && handler.isClosed();
    }

    private static void giveBack(LettuceConnections.Lease lease) {
        try {
            lease.close();
        }
        catch (Exception ex) {
            throw new BitmapStoreException("could not give back a Redis connection: " + ex.getMessage(), ex);
        }
    }

    private static Object await(RedisFuture<?> reply, long remainingNanos, Duration timeout, String name) {
        try {
            return reply.get(remainingNanos, TimeUnit.NANOSECONDS);
        }
        catch (TimeoutException ex) {
            reply.cancel(false);
            throw new BitmapStoreException(name + " did not answer within " + timeout, ex);
        }
        catch (ExecutionException ex) {
            Throwable cause = ex.getCause() == null ? ex : ex.getCause();
            throw new BitmapStoreException(name + " failed: " + cause.getMessage(), cause);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            reply.cancel(false);
            throw new BitmapStoreException(name + " was interrupted", ex);
        }
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

    private static byte[] bytes(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }

    private static ProtocolKeyword keyword(String name) {
        byte[] raw = name.getBytes(StandardCharsets.US_ASCII);
        return new ProtocolKeyword() {
            @Override
            public byte[] getBytes() {
                return raw;
            }

            @Override
            public String toString() {
                return name;
            }
        };
    }

    /** Collects a {@code BITFIELD} reply of 0/1 integers as the set of indexes that were 1. */
    private static final class BitsOutput extends CommandOutput<byte[], byte[], BitSet> {

        private int index;

        BitsOutput() {
            super(ByteArrayCodec.INSTANCE, new BitSet());
        }

        @Override
        public void set(long integer) {
            if (integer != 0) {
                output.set(index);
            }
            index++;
        }
    }
}
