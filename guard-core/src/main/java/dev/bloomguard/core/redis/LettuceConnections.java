package dev.bloomguard.core.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

/**
 * Where {@link LettuceBitmapStore} gets its Redis connections: from a plain Lettuce client
 * ({@link #of(RedisClient)}, {@link #of(RedisClusterClient)}) or from whatever manages the
 * application's connections (the Spring Boot starter adapts Spring Data Redis's factory).
 *
 * <p>The one thing to get right: a provider owns the connections it opens and closes them in
 * {@link #close()}, but not the client it was given, which belongs to whoever created it, unless
 * it was made with {@code owning}.
 */
public interface LettuceConnections extends AutoCloseable {

    /**
     * The connection every call of the store shares, opened on first use (blocking, so the store
     * asks on a background thread) and kept; after it has been closed for good, a fresh one.
     * Only called when {@link #isShared()}.
     */
    RedisClusterAsyncCommands<byte[], byte[]> shared();

    /** False when each call must borrow a connection of its own and give it back (a pool). */
    default boolean isShared() {
        return true;
    }

    /** A connection for one call, given back by closing the lease. Only called when not {@link #isShared()}. */
    default Lease borrow() {
        throw new UnsupportedOperationException("this provider shares one connection");
    }

    /**
     * Listens to a pub/sub channel on a connection of its own until the returned handle is
     * closed. The listener runs on a Redis I/O thread.
     */
    BitmapStore.Subscription subscribe(byte[] channel, BitmapStore.ChannelListener listener);

    /** Closes the connections this provider opened; not the client. */
    @Override
    void close();

    /** A borrowed connection's commands, and how to give it back. */
    record Lease(RedisClusterAsyncCommands<byte[], byte[]> commands, AutoCloseable release) implements AutoCloseable {

        @Override
        public void close() throws Exception {
            release.close();
        }
    }

    /** Connections of a standalone or Sentinel {@link RedisClient}. */
    static LettuceConnections of(RedisClient client) {
        return ClientConnections.standalone(client, false);
    }

    /** Connections of a {@link RedisClusterClient}. */
    static LettuceConnections of(RedisClusterClient client) {
        return ClientConnections.cluster(client, false);
    }

    /** As {@link #of(RedisClient)}, for a client made for these connections alone: closing them shuts it down. */
    static LettuceConnections owning(RedisClient client) {
        return ClientConnections.standalone(client, true);
    }

    /** As {@link #of(RedisClusterClient)}, for a client made for these connections alone: closing them shuts it down. */
    static LettuceConnections owning(RedisClusterClient client) {
        return ClientConnections.cluster(client, true);
    }
}
