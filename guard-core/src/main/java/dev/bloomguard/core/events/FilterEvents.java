package dev.bloomguard.core.events;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.BitmapStoreException;
import dev.bloomguard.core.redis.PackedOffsets;

/**
 * The pub/sub channel of one filter ({@code FilterKeys#events}), on which instances tell each
 * other's local mirrors about adds and swaps and each other's remembered-miss indexes about
 * remembered and forgotten keys. Every event is encoded and decoded here, and nowhere else.
 *
 * <p>The one thing easy to get wrong: an event is only ever a hint. A mirror that misses an add
 * has a clear bit and asks Redis; an index that misses a remember asks nothing and lets the call
 * through; one that misses a forget asks Redis, which no longer confirms. So publishing never
 * fails an add or a load, and a lost subscription costs round trips, never a blocked key. The
 * exception is a mirror that trusts its clear bits: it may rely on having heard every add only
 * while {@link #hearing} holds, and must set aside what it read before each
 * {@link Listener#onSubscribed} (pub/sub keeps nothing for a subscriber that is away).
 *
 * <p>Messages: {@code 'A'}, the shard (4 bytes), the packed offsets ({@link PackedOffsets});
 * {@code 'C'}, the same with the writer's {@link AddCount} after the shard (the count, 8 bytes; the
 * keys added, 4 bytes; the writer's id, 2 bytes of length and its UTF-8), which a trusting mirror
 * tallies to notice an add whose message never arrived;
 * {@code 'S'} alone; {@code 'R'} or {@code 'F'} and 8-byte index hashes; {@code 'P'}, an 8-byte
 * sender and an 8-byte sequence number (a ping; releases before it ignore it). Part of the stored
 * format: instances of two releases share the channel during an upgrade.
 */
public final class FilterEvents implements AutoCloseable {

    /** What a filter does with its peers' events; each method a no-op by default. */
    public interface Listener {

        /** Another instance added keys whose bits in {@code shard} are {@code offsets}. */
        default void onAdd(int shard, long[] offsets) {
        }

        /** As {@link #onAdd(int, long[])}, from a writer that counted the add ({@code counted}). */
        default void onAdd(int shard, long[] offsets, AddCount counted) {
            onAdd(shard, offsets);
        }

        /** Another instance swapped in a new load: what was learnt of the old one is void. */
        default void onSwap() {
        }

        /** Another instance remembered the misses of these index hashes. */
        default void onRemembered(long[] hashes) {
        }

        /** Another instance added the keys of these index hashes: their misses are forgotten. */
        default void onForgotten(long[] hashes) {
        }

        /** A ping published by {@code sender} (an instance's random number), its {@code sequence}th. */
        default void onPing(long sender, long sequence) {
        }

        /**
         * The subscription was confirmed: the first time, or again after a reconnect, when
         * events published meanwhile were lost. Called before {@link #hearing} holds again.
         */
        default void onSubscribed() {
        }
    }

    private static final Logger log = LoggerFactory.getLogger(FilterEvents.class);

    static final byte ADD = 'A';
    static final byte COUNTED_ADD = 'C';
    static final byte SWAP = 'S';
    static final byte REMEMBER = 'R';
    static final byte FORGET = 'F';
    static final byte PING = 'P';

    private final String filter;
    private final String channel;
    private final BitmapStore store;
    private volatile BitmapStore.Subscription subscription;
    private volatile boolean closed;

    private FilterEvents(String filter, String channel, BitmapStore store) {
        this.filter = filter;
        this.channel = channel;
        this.store = store;
    }

    /** The events of filter {@code filter} (for logs) on {@code channel}. */
    public static FilterEvents of(String filter, String channel, BitmapStore store) {
        return new FilterEvents(filter, channel, store);
    }

    /**
     * Subscribes {@code listener} on a thread of {@code executor}, retrying every second until
     * Redis takes the subscription or {@link #close} is called.
     */
    public void listen(Listener listener, Executor executor) {
        executor.execute(() -> {
            while (!closed && subscription == null) {
                try {
                    subscription = store.subscribe(channel, new BitmapStore.ChannelListener() {
                        @Override
                        public void onMessage(byte[] message) {
                            decode(message, listener);
                        }

                        @Override
                        public void onSubscribed() {
                            listener.onSubscribed();
                        }
                    });
                    if (closed) {
                        close();
                    }
                }
                catch (RuntimeException ex) {
                    log.warn("Filter '{}': cannot hear other instances yet ({}); retrying", filter, ex.getMessage());
                    try {
                        // Jittered, so that the instances a Redis restart cut off do not subscribe in lock step.
                        Thread.sleep(500 + ThreadLocalRandom.current().nextLong(501));
                    }
                    catch (InterruptedException interrupted) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }
        });
    }

    /**
     * True while this instance hears every event published (subscribed, and connected since
     * the subscription was last confirmed); false before {@link #listen} has subscribed.
     */
    public boolean hearing() {
        BitmapStore.Subscription current = subscription;
        return current != null && current.isHearing();
    }

    /**
     * Tells a mirror that trusts its clear bits, if there is one ({@link BitmapStore#announceAsync}),
     * about an add of an instance without a mirror; without waiting, a failure logged.
     */
    public void announceAddAsync(String metaKey, int shard, long[] offsets, int count, AddCount counted) {
        try {
            store.announceAsync(metaKey, channel, encodeAdd(shard, offsets, count, counted)).exceptionally(error -> {
                log.debug("Filter '{}': could not announce an add: {}", filter, error.getMessage());
                return false;
            });
        }
        catch (RuntimeException ex) {
            log.debug("Filter '{}': could not announce an add: {}", filter, ex.getMessage());
        }
    }

    /**
     * Keeps writers announcing their adds ({@link BitmapStore#renewTrust}) and publishes the ping
     * {@code sender}, {@code sequence}, which this instance hears back while it hears the channel.
     *
     * @return {@code trustingUntil} before and after, and Redis's time, in ms
     * @throws BitmapStoreException when Redis fails
     */
    public long[] renewTrust(String metaKey, long sender, long sequence, Duration ttl) {
        byte[] ping = ByteBuffer.allocate(17).put(PING).putLong(sender).putLong(sequence).array();
        return store.renewTrust(metaKey, channel, ping, ttl);
    }

    /**
     * Tells other mirrors about an add, without waiting; a failure is only logged (see the class
     * comment). {@code counted}: the add's count, or null when the writer did not count it.
     */
    public void publishAddAsync(int shard, long[] offsets, int count, AddCount counted) {
        publishQuietly(encodeAdd(shard, offsets, count, counted), "an add");
    }

    /** Tells other instances about a swap; throws, so that the caller can say what the failure costs. */
    public void publishSwap() {
        store.publish(channel, new byte[] { SWAP });
    }

    /** Tells other indexes that this instance remembered a miss; without waiting, a failure logged. */
    public void publishRemembered(long hash) {
        publishQuietly(encodeHashes(REMEMBER, List.of(hash)), "remembered misses");
    }

    /** Tells other indexes that these keys were added; without waiting, a failure logged. */
    public void publishForgotten(List<Long> hashes) {
        publishQuietly(encodeHashes(FORGET, hashes), "remembered misses");
    }

    private void publishQuietly(byte[] event, String what) {
        try {
            store.publishAsync(channel, event).exceptionally(error -> {
                log.debug("Filter '{}': could not tell other instances about {}: {}", filter, what, error.getMessage());
                return null;
            });
        }
        catch (RuntimeException ex) {
            log.debug("Filter '{}': could not tell other instances about {}: {}", filter, what, ex.getMessage());
        }
    }

    /** Stops listening; publishing still works. */
    @Override
    public void close() {
        closed = true;
        BitmapStore.Subscription current = subscription;
        subscription = null;
        if (current != null) {
            try {
                current.close();
            }
            catch (Exception ex) {
                log.debug("Filter '{}': closing the events subscription failed: {}", filter, ex.toString());
            }
        }
    }

    static byte[] encodeAdd(int shard, long[] offsets, int count, AddCount counted) {
        byte[] packed = PackedOffsets.pack(offsets, 0, count);
        if (counted == null) {
            return ByteBuffer.allocate(packed.length + 5).put(ADD).putInt(shard).put(packed).array();
        }
        byte[] writer = counted.writer().getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(packed.length + 19 + writer.length).put(COUNTED_ADD).putInt(shard)
                .putLong(counted.count()).putInt(counted.added()).putShort((short) writer.length).put(writer)
                .put(packed).array();
    }

    static byte[] encodeHashes(byte type, List<Long> hashes) {
        ByteBuffer event = ByteBuffer.allocate(1 + 8 * hashes.size()).put(type);
        hashes.forEach(event::putLong);
        return event.array();
    }

    /** Hands {@code message} to {@code listener}; a message of no known shape is ignored. */
    static void decode(byte[] message, Listener listener) {
        if (message.length == 0) {
            return;
        }
        switch (message[0]) {
            case SWAP -> listener.onSwap();
            case ADD -> {
                if (message.length >= 5 && (message.length - 5) % 4 == 0) {
                    listener.onAdd((int) PackedOffsets.unpack(message, 1), PackedOffsets.unpackAll(message, 5));
                }
            }
            case COUNTED_ADD -> {
                if (message.length >= 19) {
                    ByteBuffer buffer = ByteBuffer.wrap(message, 1, message.length - 1);
                    int shard = buffer.getInt();
                    long count = buffer.getLong();
                    int added = buffer.getInt();
                    int writerLength = Short.toUnsignedInt(buffer.getShort());
                    int packedStart = 19 + writerLength;
                    if (message.length >= packedStart && (message.length - packedStart) % 4 == 0) {
                        String writer = new String(message, 19, writerLength, StandardCharsets.UTF_8);
                        listener.onAdd(shard, PackedOffsets.unpackAll(message, packedStart),
                                new AddCount(writer, count, added));
                    }
                }
            }
            case REMEMBER, FORGET -> {
                if (message.length >= 9 && (message.length - 1) % 8 == 0) {
                    long[] hashes = new long[(message.length - 1) / 8];
                    ByteBuffer buffer = ByteBuffer.wrap(message, 1, message.length - 1);
                    for (int i = 0; i < hashes.length; i++) {
                        hashes[i] = buffer.getLong();
                    }
                    if (message[0] == REMEMBER) {
                        listener.onRemembered(hashes);
                    }
                    else {
                        listener.onForgotten(hashes);
                    }
                }
            }
            case PING -> {
                if (message.length == 17) {
                    ByteBuffer buffer = ByteBuffer.wrap(message, 1, 16);
                    listener.onPing(buffer.getLong(), buffer.getLong());
                }
            }
            default -> {
                // A newer release's event: nothing this one knows to do with it.
            }
        }
    }
}
