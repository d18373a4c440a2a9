package dev.bloomguard.core.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Pub/sub between instances: adds and swaps for mirrors, pings and the trust field for mirrors that
 * trust their clear bits.
 *
 * <p>A role of {@link BitmapStore}; every failure, refusal or timeout is a {@link BitmapStoreException}.
 */
public interface EventStore {

    /**
     * Publishes {@code message} on {@code channel} only while field {@code trustingUntil} of hash
     * {@code metaKey} lies ahead by Redis's clock (an instance's mirror trusts its clear bits and
     * must hear every add), without blocking the calling thread.
     *
     * @return whether it was published
     */
    CompletableFuture<Boolean> announceAsync(String metaKey, String channel, byte[] message);

    /**
     * Once {@code metaKey} holds {@code loadedAt}, moves its field {@code trustingUntil} to at
     * least {@code ttl} ahead by Redis's clock; then publishes {@code ping} on {@code channel}.
     * One script, so that the ping comes after the field.
     *
     * @return {@code trustingUntil} before (0 when missing) and after, and Redis's time, in ms
     */
    long[] renewTrust(String metaKey, String channel, byte[] ping, Duration ttl);

    /** {@link #publish} without blocking the calling thread; see {@link CheckStore#readBitsAsync}. */
    default CompletableFuture<Void> publishAsync(String channel, byte[] message) {
        return Completions.now(() -> {
            publish(channel, message);
            return null;
        });
    }

    /** {@code PUBLISH channel message}. */
    void publish(String channel, byte[] message);

    /**
     * Subscribes {@code listener} to {@code channel} on a connection of its own, which
     * reconnects and resubscribes by itself; closing the result unsubscribes.
     */
    Subscription subscribe(String channel, ChannelListener listener);

    /** What a subscription hands on. */
    @FunctionalInterface
    interface ChannelListener {

        void onMessage(byte[] message);

        /**
         * Redis confirmed the subscription: the first time, and again after each reconnect.
         * What was published before (while disconnected) was not heard and never will be.
         */
        default void onSubscribed() {
        }
    }

    /** A subscription that {@link #subscribe} opened; closing it unsubscribes. */
    interface Subscription extends AutoCloseable {

        /**
         * True from Redis's confirmation of the subscription until the connection is lost: what
         * is published meanwhile reaches the listener. Pub/sub keeps nothing for a subscriber
         * that is not connected.
         */
        boolean isHearing();

        @Override
        void close();
    }
}
