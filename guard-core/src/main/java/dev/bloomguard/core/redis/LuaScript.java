package dev.bloomguard.core.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

/**
 * A Lua script of the store, read from the resources in {@code lua/} beside this class (a script
 * made of several, such as a shared function and its caller, is their text joined in order), and
 * sent by its SHA-1 ({@code EVALSHA}): Redis then parses it once per node instead of once per call,
 * and the command carries 40 bytes instead of the script. A Redis that does not have it answers
 * {@code NOSCRIPT} (after a restart, a failover or {@code SCRIPT FLUSH}), and the caller sends it
 * whole once ({@link #eval}), which caches it again.
 */
final class LuaScript {

    private final String name;
    private final byte[] body;
    private final String sha1;

    private LuaScript(String name, byte[] body) {
        this.name = name;
        this.body = body;
        this.sha1 = sha1(body);
    }

    /** The script made of the resources {@code lua/<part>.lua}, in order; named after the last. */
    static LuaScript of(String... parts) {
        StringBuilder text = new StringBuilder();
        for (String part : parts) {
            String resource = "lua/" + part + ".lua";
            try (InputStream in = LuaScript.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("the Lua script " + resource + " is missing from bloom-guard-core");
                }
                text.append(new String(in.readAllBytes(), StandardCharsets.UTF_8)).append('\n');
            }
            catch (IOException ex) {
                throw new UncheckedIOException("could not read the Lua script " + resource, ex);
            }
        }
        return new LuaScript(parts[parts.length - 1], text.toString().getBytes(StandardCharsets.UTF_8));
    }

    <T> RedisFuture<T> evalsha(RedisClusterAsyncCommands<byte[], byte[]> commands, ScriptOutputType type, byte[][] keys,
            byte[]... arguments) {
        return commands.evalsha(sha1, type, keys, arguments);
    }

    <T> RedisFuture<T> eval(RedisClusterAsyncCommands<byte[], byte[]> commands, ScriptOutputType type, byte[][] keys,
            byte[]... arguments) {
        return commands.eval(body, type, keys, arguments);
    }

    /** True when {@code error}, or what caused it, is Redis's {@code NOSCRIPT}. */
    static boolean isNoScript(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof RedisNoScriptException) {
                return true;
            }
            if (cause.getCause() == cause) {
                return false;
            }
        }
        return false;
    }

    /** True when {@code error}, or what caused it, is Redis's {@code NOPERM} for {@code EVALSHA}. */
    static boolean isEvalshaDenied(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof RedisCommandExecutionException && cause.getMessage() != null
                    && cause.getMessage().startsWith("NOPERM") && cause.getMessage().toLowerCase(Locale.ROOT).contains("evalsha")) {
                return true;
            }
            if (cause.getCause() == cause) {
                return false;
            }
        }
        return false;
    }

    String sha1() {
        return sha1;
    }

    @Override
    public String toString() {
        return name + " (" + sha1 + ")";
    }

    private static String sha1(byte[] body) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(body));
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("the JDK has no SHA-1, which Redis names scripts by", ex);
        }
    }
}
