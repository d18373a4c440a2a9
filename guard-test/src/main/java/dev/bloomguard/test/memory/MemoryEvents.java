package dev.bloomguard.test.memory;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.bloomguard.core.redis.EventStore;

/**
 * Pub/sub within this process ({@link EventStore}): a message reaches the listeners subscribed to
 * its channel when it was published, in the order published, on one delivery thread of the store's
 * own, never the publisher's; as Lettuce hands messages on from its event loop, so that a listener
 * never runs inside the caller that published. {@code announce} and {@code renewTrust} read and
 * write the {@code :meta} hash as {@code announce.lua} and {@code trust.lua} do, and queue their
 * message under the same lock, so that the ping comes after the field.
 */
final class MemoryEvents implements EventStore {

    private static final Logger log = LoggerFactory.getLogger(MemoryEvents.class);

    private final Keyspace keys;
    private final Map<String, List<Listening>> channels = new ConcurrentHashMap<>();
    /** One thread at most, gone after a second idle: a store nobody subscribes to holds no thread. */
    private final ThreadPoolExecutor delivery = new ThreadPoolExecutor(1, 1, 1, TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(), task -> {
                Thread thread = new Thread(task, "bloom-guard-in-memory-pubsub");
                thread.setDaemon(true);
                return thread;
            });

    MemoryEvents(Keyspace keys) {
        this.keys = keys;
        delivery.allowCoreThreadTimeOut(true);
    }

    @Override
    public CompletableFuture<Boolean> announceAsync(String metaKey, String channel, byte[] message) {
        return Keyspace.async(() -> keys.read(() -> {
            if (number(keys.hash(metaKey).get("trustingUntil")) > keys.now()) {
                publish(channel, message);
                return true;
            }
            return false;
        }));
    }

    @Override
    public long[] renewTrust(String metaKey, String channel, byte[] ping, Duration ttl) {
        return keys.write(() -> {
            long now = keys.now();
            long before = number(keys.hash(metaKey).get("trustingUntil"));
            long after = before;
            if (keys.hash(metaKey).containsKey("loadedAt") && now + ttl.toMillis() > before) {
                after = now + ttl.toMillis();
                keys.hashToWrite(metaKey).put("trustingUntil", Long.toString(after));
            }
            publish(channel, ping);
            return new long[] { before, after, now };
        });
    }

    @Override
    public void publish(String channel, byte[] message) {
        List<Listening> listening = channels.get(channel);
        if (listening == null || listening.isEmpty()) {
            return;
        }
        byte[] copy = message.clone();
        try {
            for (Listening subscription : listening) {
                delivery.execute(() -> subscription.deliver(copy));
            }
        }
        catch (RejectedExecutionException closed) {
            // The store was closed meanwhile: nobody hears it any more.
        }
    }

    /**
     * Registered first and then confirmed, as Redis does: told before it was registered, a
     * listener (a mirror clearing its pages) could miss a message published in between, and keep
     * a page without that add's bits. Confirmed before this returns, as {@code LettucePubSub} does.
     */
    @Override
    public Subscription subscribe(String channel, ChannelListener listener) {
        Listening subscription = new Listening(channel, listener);
        channels.computeIfAbsent(channel, name -> new CopyOnWriteArrayList<>()).add(subscription);
        listener.onSubscribed();
        subscription.confirmed = true;
        return subscription;
    }

    int subscribers(String channel) {
        return channels.getOrDefault(channel, List.of()).size();
    }

    /** Ends every subscription; what is still queued is not delivered. */
    void close() {
        channels.values().forEach(List::clear);
        delivery.shutdownNow();
    }

    private static long number(String value) {
        return value == null ? 0 : Long.parseLong(value);
    }

    private final class Listening implements Subscription {

        private final String channel;
        private final ChannelListener listener;
        private volatile boolean open = true;
        private volatile boolean confirmed;

        Listening(String channel, ChannelListener listener) {
            this.channel = channel;
            this.listener = listener;
        }

        void deliver(byte[] message) {
            if (!open) {
                return;
            }
            try {
                listener.onMessage(message);
            }
            catch (RuntimeException ex) {
                log.warn("A listener of in-memory channel '{}' failed on a message", channel, ex);
            }
        }

        @Override
        public boolean isHearing() {
            return open && confirmed && !delivery.isShutdown();
        }

        @Override
        public void close() {
            open = false;
            List<Listening> listening = channels.get(channel);
            if (listening != null) {
                listening.remove(this);
            }
        }
    }
}
