package dev.bloomguard.core.redis;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

/**
 * {@link LettuceConnections} of a plain Lettuce client: one shared connection, opened on first
 * use and again after it was closed, and one connection per subscription. A connection that is
 * merely reconnecting is kept: Lettuce reconnects it by itself. The client is shut down on close
 * only when it was handed over ({@code owning}).
 */
final class ClientConnections implements LettuceConnections {

    private final Supplier<StatefulConnection<byte[], byte[]>> connect;
    private final Supplier<StatefulRedisPubSubConnection<byte[], byte[]>> connectPubSub;
    private final List<StatefulConnection<byte[], byte[]>> opened = new CopyOnWriteArrayList<>();
    private volatile Shared shared;
    private volatile boolean closed;
    private final AbstractRedisClient owned;

    private ClientConnections(Supplier<StatefulConnection<byte[], byte[]>> connect,
            Supplier<StatefulRedisPubSubConnection<byte[], byte[]>> connectPubSub, AbstractRedisClient owned) {
        this.connect = connect;
        this.connectPubSub = connectPubSub;
        this.owned = owned;
    }

    /** @param owning whether {@link #close()} shuts the client down too */
    static ClientConnections standalone(RedisClient client, boolean owning) {
        Objects.requireNonNull(client, "client must not be null");
        return new ClientConnections(() -> client.connect(ByteArrayCodec.INSTANCE),
                () -> client.connectPubSub(ByteArrayCodec.INSTANCE), owning ? client : null);
    }

    /** @param owning whether {@link #close()} shuts the client down too */
    static ClientConnections cluster(RedisClusterClient client, boolean owning) {
        Objects.requireNonNull(client, "client must not be null");
        return new ClientConnections(() -> client.connect(ByteArrayCodec.INSTANCE),
                () -> client.connectPubSub(ByteArrayCodec.INSTANCE), owning ? client : null);
    }

    @Override
    public synchronized RedisClusterAsyncCommands<byte[], byte[]> shared() {
        if (closed) {
            throw new IllegalStateException("the connections are closed");
        }
        Shared current = shared;
        if (current == null || current.closedForGood()) {
            if (current != null) {
                opened.remove(current.connection());
            }
            StatefulConnection<byte[], byte[]> connection = connect.get();
            opened.add(connection);
            current = new Shared(connection, asyncCommands(connection));
            shared = current;
        }
        return current.commands();
    }

    @Override
    public AutoCloseable subscribe(byte[] channel, Consumer<byte[]> listener) {
        StatefulRedisPubSubConnection<byte[], byte[]> connection = connectPubSub.get();
        opened.add(connection);
        connection.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(byte[] from, byte[] message) {
                listener.accept(message);
            }
        });
        try {
            connection.sync().subscribe(channel);
        }
        catch (RuntimeException ex) {
            opened.remove(connection);
            connection.close();
            throw ex;
        }
        return () -> {
            opened.remove(connection);
            connection.close();
        };
    }

    @Override
    public void close() {
        closed = true;
        try {
            opened.forEach(StatefulConnection::close);
            opened.clear();
        }
        finally {
            if (owned != null) {
                owned.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    private static RedisClusterAsyncCommands<byte[], byte[]> asyncCommands(StatefulConnection<byte[], byte[]> connection) {
        if (connection instanceof StatefulRedisConnection<byte[], byte[]> standalone) {
            return standalone.async();
        }
        return ((StatefulRedisClusterConnection<byte[], byte[]>) connection).async();
    }

    private record Shared(StatefulConnection<byte[], byte[]> connection, RedisClusterAsyncCommands<byte[], byte[]> commands) {

        boolean closedForGood() {
            return connection instanceof RedisChannelHandler<?, ?> handler && handler.isClosed();
        }
    }
}
