package dev.bloomguard.core.redis;

import java.util.Objects;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

/**
 * A subscription on a Lettuce pub/sub connection of its own, which Lettuce reconnects and
 * resubscribes by itself. It knows whether it hears ({@link #isHearing}): from each confirmation
 * of the subscription by Redis until the client reports the connection lost. A listener that
 * must not miss a message (a mirror that trusts its clear bits) relies on that, and on being
 * told of each confirmation ({@link BitmapStore.ChannelListener#onSubscribed}), before which
 * what it knew may lack what was published while it was away.
 */
public final class LettucePubSub implements BitmapStore.Subscription {

    private final AbstractRedisClient client;
    private final StatefulRedisPubSubConnection<byte[], byte[]> connection;
    private final RedisConnectionStateListener lost;
    private volatile boolean confirmed;

    private LettucePubSub(AbstractRedisClient client, StatefulRedisPubSubConnection<byte[], byte[]> connection) {
        this.client = client;
        this.connection = connection;
        this.lost = new RedisConnectionStateListener() {
            @Override
            public void onRedisDisconnected(RedisChannelHandler<?, ?> handler) {
                if (handler == connection) {
                    confirmed = false;
                }
            }
        };
    }

    /**
     * Subscribes {@code listener} to {@code channel} on a new pub/sub connection of
     * {@code client} (a {@link RedisClient} or a {@link RedisClusterClient}), used for nothing
     * else and closed with the subscription, and returns once Redis confirmed the subscription.
     */
    public static LettucePubSub open(AbstractRedisClient client, byte[] channel, BitmapStore.ChannelListener listener) {
        Objects.requireNonNull(listener, "listener must not be null");
        StatefulRedisPubSubConnection<byte[], byte[]> connection;
        if (client instanceof RedisClusterClient cluster) {
            connection = cluster.connectPubSub(ByteArrayCodec.INSTANCE);
        }
        else if (client instanceof RedisClient standalone) {
            connection = standalone.connectPubSub(ByteArrayCodec.INSTANCE);
        }
        else {
            throw new IllegalArgumentException("a " + client.getClass().getName() + " is neither a RedisClient nor a"
                    + " RedisClusterClient");
        }
        LettucePubSub subscription = new LettucePubSub(client, connection);
        client.addListener(subscription.lost);
        connection.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(byte[] from, byte[] message) {
                listener.onMessage(message);
            }

            @Override
            public void subscribed(byte[] to, long count) {
                // Told first, trusted after: whatever the listener learnt before must be set aside
                // before anything may rely on having heard every message.
                listener.onSubscribed();
                subscription.confirmed = true;
            }
        });
        try {
            connection.sync().subscribe(channel);
        }
        catch (RuntimeException ex) {
            subscription.close();
            throw ex;
        }
        // Confirmed: the reply may be handed back before the listener above is told of it.
        listener.onSubscribed();
        subscription.confirmed = true;
        return subscription;
    }

    @Override
    public boolean isHearing() {
        return confirmed && connection.isOpen();
    }

    @Override
    public void close() {
        confirmed = false;
        client.removeListener(lost);
        connection.close();
    }
}
