package dev.bloomguard.core.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

/**
 * The store's scripts ({@link LuaScript}, resources in {@code lua/}) as {@link RedisCalls}: sent by
 * their digest with {@code EVALSHA}, and whole with {@code EVAL} once more when Redis lacks them
 * or the user may not {@code EVALSHA}.
 */
final class ScriptCalls {

    private static final Logger log = LoggerFactory.getLogger(LettuceBitmapStore.class);

    private final RedisCalls calls;
    private final Duration operationTimeout;
    /** Set once Redis refused {@code EVALSHA} to this user: see {@link #sendWhole}. */
    private volatile boolean evalshaRefused;

    /** @param operationTimeout bound of a script sent without a timeout of its own */
    ScriptCalls(RedisCalls calls, Duration operationTimeout) {
        this.calls = calls;
        this.operationTimeout = operationTimeout;
    }

    /**
     * Runs {@code script} with {@code EVALSHA}, and whole with {@code EVAL} once more when that
     * fails for want of the script ({@link #sendWhole}).
     */
    <T> T script(String name, LuaScript script, ScriptOutputType type, byte[][] keys, byte[]... arguments) {
        try {
            return calls.call(name, operationTimeout, commands -> List.of(send(commands, script, false, type, keys, arguments)));
        }
        catch (BitmapStoreException ex) {
            if (!sendWhole(ex)) {
                throw ex;
            }
            return calls.call(name, operationTimeout, commands -> List.of(send(commands, script, true, type, keys, arguments)));
        }
    }

    /** {@link #script} without blocking the calling thread. */
    <T> CompletableFuture<T> scriptAsync(String name, Duration timeout, LuaScript script, ScriptOutputType type,
            byte[][] keys, byte[]... arguments) {
        return calls.<T>callAsync(name, timeout, commands -> List.of(send(commands, script, false, type, keys, arguments)))
                .exceptionallyCompose(error -> sendWhole(error)
                        ? calls.<T>callAsync(name, timeout, commands -> List.of(send(commands, script, true, type, keys, arguments)))
                        : CompletableFuture.failedFuture(error));
    }

    <T> RedisFuture<T> send(RedisClusterAsyncCommands<byte[], byte[]> commands, LuaScript script, boolean whole,
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
    boolean sendWhole(Throwable error) {
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
}
