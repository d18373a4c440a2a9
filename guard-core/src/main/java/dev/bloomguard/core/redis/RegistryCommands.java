package dev.bloomguard.core.redis;

import static dev.bloomguard.core.redis.BitCommands.bytes;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.lettuce.core.ScriptOutputType;

import dev.bloomguard.core.redis.RegistryStore.Heartbeat;
import dev.bloomguard.core.redis.RegistryStore.Registry;

/**
 * The commands of a rolling change's registry ({@link RegistryStore}): the heartbeat, the registry
 * read and Redis's clock; see {@link BitmapStore#heartbeat}.
 */
final class RegistryCommands implements RegistryStore {

    private static final LuaScript HEARTBEAT_SCRIPT = LuaScript.of("heartbeat");
    private static final LuaScript REGISTRY_SCRIPT = LuaScript.of("now-function", "registry");
    private static final LuaScript TIME_SCRIPT = LuaScript.of("now-function", "time");

    private final RedisCalls calls;
    private final ScriptCalls scripts;
    private final Duration operationTimeout;

    RegistryCommands(RedisCalls calls, ScriptCalls scripts, Duration operationTimeout) {
        this.calls = calls;
        this.scripts = scripts;
        this.operationTimeout = operationTimeout;
    }

    @Override
    public Heartbeat heartbeat(String instancesKey, String generationsKey, String invalidatedKey, String instanceId,
            String instanceValue, List<String> generations, List<String> invalidated) {
        byte[][] keys = { bytes(instancesKey), bytes(generationsKey), bytes(invalidatedKey) };
        List<byte[]> arguments = new ArrayList<>(List.of(bytes(instanceId), bytes(instanceValue),
                bytes(Integer.toString(generations.size()))));
        generations.forEach(generation -> arguments.add(bytes(generation)));
        invalidated.forEach(live -> arguments.add(bytes(live)));
        List<Object> reply = scripts.script("heartbeat", HEARTBEAT_SCRIPT, ScriptOutputType.MULTI, keys,
                arguments.toArray(byte[][]::new));
        return new Heartbeat((Long) reply.get(0), pairs(reply.get(1)), pairs(reply.get(2)), pairs(reply.get(3)));
    }

    @Override
    public Registry readRegistry(String generationsKey, String invalidatedKey) {
        byte[][] keys = { bytes(generationsKey), bytes(invalidatedKey) };
        List<Object> reply = scripts.script("read registry", REGISTRY_SCRIPT, ScriptOutputType.MULTI, keys);
        return new Registry((Long) reply.get(0), pairs(reply.get(1)), pairs(reply.get(2)));
    }

    @Override
    public long timeMillis(String slotKey) {
        Long now = scripts.script("time", TIME_SCRIPT, ScriptOutputType.INTEGER, new byte[][] { bytes(slotKey) });
        return now;
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
}
