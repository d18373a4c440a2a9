package dev.bloomguard.core.redis;

import static dev.bloomguard.core.internal.Arguments.checkArgument;
import static dev.bloomguard.core.redis.BitCommands.bytes;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;


/**
 * The commands of remembered misses ({@code negative-cache}, {@link MissStore}): remember, confirm and
 * forget, each one script or one pipelined round trip on the miss's slot; see {@link BitmapStore#rememberMissAsync}.
 */
final class MissCommands implements MissStore {

    private static final LuaScript REMEMBER_MISS = LuaScript.of("now-function", "remember-miss");
    private static final LuaScript MISS_REMEMBERED = LuaScript.of("now-function", "miss-remembered");
    private static final LuaScript FORGET_MISSES_IF_IN_USE = LuaScript.of("now-function", "forget-misses-if-in-use");

    private final RedisCalls calls;
    private final ScriptCalls scripts;
    private final Duration operationTimeout;

    MissCommands(RedisCalls calls, ScriptCalls scripts, Duration operationTimeout) {
        this.calls = calls;
        this.scripts = scripts;
        this.operationTimeout = operationTimeout;
    }

    @Override
    public CompletableFuture<Boolean> rememberMissAsync(String missKey, String scope, String addedKey,
            String metaKey, Duration ttl, long sendByNanos) {
        byte[][] keys = { bytes(missKey), bytes(addedKey), bytes(metaKey) };
        byte[][] arguments = { bytes(scope), bytes(Long.toString(ttl.toMillis())),
                bytes(Long.toString(MissStore.ADDED_WINDOW.toMillis())) };
        return calls.<Long>callAsync("remember miss", operationTimeout,
                commands -> List.of(rememberUnlessLate(commands, sendByNanos, false, keys, arguments)))
                .exceptionallyCompose(error -> scripts.sendWhole(error)
                        ? calls.<Long>callAsync("remember miss", operationTimeout,
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
        return scripts.send(commands, REMEMBER_MISS, whole, ScriptOutputType.INTEGER, keys, arguments);
    }

    @Override
    public CompletableFuture<Boolean> missRememberedAsync(String missKey, String scope, String metaKey,
            Duration timeout) {
        return scripts.<Long>scriptAsync("miss remembered", timeout, MISS_REMEMBERED, ScriptOutputType.INTEGER,
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
        return scripts.<Long>scriptAsync("forget misses", operationTimeout, FORGET_MISSES_IF_IN_USE, ScriptOutputType.INTEGER,
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
        return calls.callAsync("SET+DEL forget misses", operationTimeout, commands -> {
            List<RedisFuture<?>> replies = new ArrayList<>(missKeys.size() + addedKeys.size());
            for (String added : addedKeys) {
                // Same connection and slot, so Redis runs them before the DEL: see the interface.
                replies.add(commands.set(bytes(added), one, SetArgs.Builder.px(window)));
            }
            replies.add(commands.del(missKeys.stream().map(BitCommands::bytes).toArray(byte[][]::new)));
            return replies;
        }).thenApply(last -> null);
    }
}
