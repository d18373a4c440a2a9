package dev.bloomguard.core.redis;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
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

/**
 * {@link LettuceConnections} of a plain Lettuce client: one shared connection, opened on first
 * use and again after it was closed, and one connection per subscription. A connection that is
 * merely reconnecting is kept: Lettuce reconnects it by itself. The client is shut down on close
 * only when it was handed over ({@code owning}).
 */
final class ClientConnections implements LettuceConnections {

    private final AbstractRedisClient client;
    private final Supplier<StatefulConnection<byte[], byte[]>> connect;
    private final List<StatefulConnection<byte[], byte[]>> opened = new CopyOnWriteArrayList<>();
    private final List<LettucePubSub> subscriptions = new CopyOnWriteArrayList<>();
    private volatile Shared shared;
    private volatile boolean closed;
    private final boolean owning;

    private ClientConnections(AbstractRedisClient client, Supplier<StatefulConnection<byte[], byte[]>> connect,
            boolean owning) {
        this.client = client;
        this.connect = connect;
        this.owning = owning;
    }

    /** @param owning whether {@link #close()} shuts the client down too */
    static ClientConnections standalone(RedisClient client, boolean owning) {
        Objects.requireNonNull(client, "client must not be null");
        return new ClientConnections(client, () -> client.connect(ByteArrayCodec.INSTANCE), owning);
    }

    /** @param owning whether {@link #close()} shuts the client down too */
    static ClientConnections cluster(RedisClusterClient client, boolean owning) {
        Objects.requireNonNull(client, "client must not be null");
        return new ClientConnections(client, () -> client.connect(ByteArrayCodec.INSTANCE), owning);
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
    public BitmapStore.Subscription subscribe(byte[] channel, BitmapStore.ChannelListener listener) {
        LettucePubSub subscription = LettucePubSub.open(client, channel, listener);
        subscriptions.add(subscription);
        return new BitmapStore.Subscription() {
            @Override
            public boolean isHearing() {
                return subscription.isHearing();
            }

            @Override
            public void close() {
                subscriptions.remove(subscription);
                subscription.close();
            }
        };
    }

    @Override
    public void close() {
        closed = true;
        try {
            opened.forEach(StatefulConnection::close);
            opened.clear();
            subscriptions.forEach(LettucePubSub::close);
            subscriptions.clear();
        }
        finally {
            if (owning) {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
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
