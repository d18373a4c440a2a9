package dev.bloomguard.core.redis;

import static dev.bloomguard.core.redis.BitCommands.bytes;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.lettuce.core.ScriptOutputType;

/**
 * The commands of pub/sub between instances ({@link EventStore}): publish, announce and renew trust
 * (scripts, so that Redis's clock decides), and subscribe on a connection of its own from
 * {@link LettuceConnections}, which is not a call and so does not go through {@link RedisCalls}.
 */
final class EventCommands implements EventStore {

    private static final LuaScript ANNOUNCE = LuaScript.of("now-function", "announce");
    private static final LuaScript TRUST = LuaScript.of("now-function", "trust");

    private final LettuceConnections connections;
    private final RedisCalls calls;
    private final ScriptCalls scripts;
    private final Duration operationTimeout;

    EventCommands(LettuceConnections connections, RedisCalls calls, ScriptCalls scripts, Duration operationTimeout) {
        this.connections = connections;
        this.calls = calls;
        this.scripts = scripts;
        this.operationTimeout = operationTimeout;
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
}
