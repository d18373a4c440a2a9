package dev.bloomguard.core.redis;

import static dev.bloomguard.core.redis.BitCommands.bytes;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;

/**
 * The key, hash and lock primitives ({@link KeyStore}): one command each, or one script where the
 * command must only act while the key still holds what the caller saw.
 */
final class KeyCommands implements KeyStore {

    private static final LuaScript CLEAR_BIT_IF_EXISTS = LuaScript.of("clear-bit-if-exists");
    private static final LuaScript EXPIRE_IF_EQUALS = LuaScript.of("expire-if-equals");
    private static final LuaScript DELETE_IF_EQUALS = LuaScript.of("delete-if-equals");

    private final RedisCalls calls;
    private final ScriptCalls scripts;
    private final Duration operationTimeout;

    KeyCommands(RedisCalls calls, ScriptCalls scripts, Duration operationTimeout) {
        this.calls = calls;
        this.scripts = scripts;
        this.operationTimeout = operationTimeout;
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
        hashDelete(key, field, operationTimeout);
    }

    @Override
    public void hashDelete(String key, String field, Duration timeout) {
        calls.call("HDEL", timeout, commands -> List.of(commands.hdel(bytes(key), bytes(field))));
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
}
