package dev.bloomguard.spring.redis;

import java.util.Objects;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.LettuceConnections;
import dev.bloomguard.core.redis.LettucePubSub;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

/**
 * The application's own Spring Data Redis {@link LettuceConnectionFactory} as
 * {@link LettuceConnections}: its shared native connection when it shares one, otherwise a
 * connection per call from its pool. The factory stays the application's: {@link #close()}
 * leaves it alone.
 */
public final class SpringDataLettuceConnections implements LettuceConnections {

    private final LettuceConnectionFactory factory;

    public SpringDataLettuceConnections(LettuceConnectionFactory factory) {
        this.factory = Objects.requireNonNull(factory, "factory must not be null");
    }

    /** Closing the Spring connection leaves the shared native one open: Spring keeps it for every caller. */
    @Override
    public RedisClusterAsyncCommands<byte[], byte[]> shared() {
        try (RedisConnection connection = factory.getConnection()) {
            return nativeCommands(connection);
        }
    }

    @Override
    public boolean isShared() {
        return factory.getShareNativeConnection();
    }

    @Override
    public Lease borrow() {
        RedisConnection connection = factory.getConnection();
        try {
            return new Lease(nativeCommands(connection), connection::close);
        }
        catch (RuntimeException ex) {
            connection.close();
            throw ex;
        }
    }

    /**
     * On a pub/sub connection of the factory's own Lettuce client, as Spring's subscriptions are,
     * but held directly: Spring's subscription does not say when its connection is lost and found
     * again, which a mirror that trusts its clear bits must know ({@link LettucePubSub}).
     */
    @Override
    public BitmapStore.Subscription subscribe(byte[] channel, BitmapStore.ChannelListener listener) {
        return LettucePubSub.open(factory.getRequiredNativeClient(), channel, listener);
    }

    /** Nothing to close: the factory and its connections belong to the application. */
    @Override
    public void close() {
    }

    private static RedisClusterAsyncCommands<byte[], byte[]> nativeCommands(RedisConnection connection) {
        if (!(connection instanceof LettuceConnection lettuce)) {
            throw new IllegalStateException("a LettuceConnectionFactory gave a " + connection.getClass().getName());
        }
        return lettuce.getNativeConnection();
    }
}
