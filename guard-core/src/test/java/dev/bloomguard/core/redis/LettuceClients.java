package dev.bloomguard.core.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * A plain Lettuce client for one test Redis with the {@link LettuceConnections} a store gets,
 * closed together: the tests' one way to connect, as an application without Spring would.
 */
public final class LettuceClients implements LettuceConnections {

    private final RedisClient client;
    private final LettuceConnections connections;
    private StatefulRedisConnection<byte[], byte[]> administration;

    private LettuceClients(RedisClient client, LettuceConnections connections) {
        this.client = client;
        this.connections = connections;
    }

    public static LettuceClients standalone(int port) {
        RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", port));
        return new LettuceClients(client, LettuceConnections.owning(client));
    }

    /** Blocking commands on a connection of their own, for a test to set up and inspect Redis. */
    public synchronized RedisCommands<byte[], byte[]> commands() {
        if (administration == null) {
            administration = client.connect(ByteArrayCodec.INSTANCE);
        }
        return administration.sync();
    }

    @Override
    public RedisClusterAsyncCommands<byte[], byte[]> shared() {
        return connections.shared();
    }

    @Override
    public BitmapStore.Subscription subscribe(byte[] channel, BitmapStore.ChannelListener listener) {
        return connections.subscribe(channel, listener);
    }

    /** Closes the test's own connection, then the store's, which shuts the client down. */
    @Override
    public synchronized void close() {
        if (administration != null) {
            administration.close();
        }
        connections.close();
    }
}
