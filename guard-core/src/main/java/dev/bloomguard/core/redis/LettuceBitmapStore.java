package dev.bloomguard.core.redis;

import static com.google.common.base.Preconditions.checkArgument;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;

/**
 * {@link BitmapStore} over the Lettuce connection that Spring Data Redis already manages.
 *
 * <p>Reads go through Lettuce's asynchronous API so that each check is bounded by its own
 * timeout, independent of the client's command timeout, and so that a check is exactly one
 * {@code BITFIELD_RO} command: no script, no transaction, no configuration read.
 */
public final class LettuceBitmapStore implements BitmapStore {

    /** Redis caps one command's argument count far above this; the cap keeps one write's reply small. */
    private static final int MAX_SETS_PER_COMMAND = 30_000;
    private static final int UPLOAD_CHUNK_BYTES = 8 * 1024 * 1024;

    private static final ProtocolKeyword BITFIELD_RO = keyword("BITFIELD_RO");
    private static final ProtocolKeyword BITFIELD = keyword("BITFIELD");
    private static final byte[] GET = "GET".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SET = "SET".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] U1 = "u1".getBytes(StandardCharsets.US_ASCII);

    private final LettuceConnectionFactory connectionFactory;
    private final Duration operationTimeout;

    private LettuceBitmapStore(LettuceConnectionFactory connectionFactory, Duration operationTimeout) {
        this.connectionFactory = connectionFactory;
        this.operationTimeout = operationTimeout;
    }

    /**
     * @param operationTimeout bound on writes and uploads; checks carry their own timeout
     */
    public static LettuceBitmapStore create(LettuceConnectionFactory connectionFactory, Duration operationTimeout) {
        checkArgument(connectionFactory != null, "connectionFactory must not be null");
        checkArgument(operationTimeout != null && !operationTimeout.isNegative() && !operationTimeout.isZero(),
                "operationTimeout (%s) must be positive", operationTimeout);
        return new LettuceBitmapStore(connectionFactory, operationTimeout);
    }

    @Override
    public BitSet readBits(String key, long[] offsets, int count, Duration timeout) {
        CommandArgs<byte[], byte[]> args = new CommandArgs<>(ByteArrayCodec.INSTANCE).addKey(bytes(key));
        for (int i = 0; i < count; i++) {
            args.add(GET).add(U1).add(offsets[i]);
        }
        return call(commands -> commands.dispatch(BITFIELD_RO, new BitsOutput(), args), timeout, "BITFIELD_RO");
    }

    @Override
    public void setBits(String key, long[] offsets, int count) {
        byte[] rawKey = bytes(key);
        withCommands(commands -> {
            List<RedisFuture<?>> replies = new ArrayList<>();
            for (int start = 0; start < count; start += MAX_SETS_PER_COMMAND) {
                CommandArgs<byte[], byte[]> args = new CommandArgs<>(ByteArrayCodec.INSTANCE).addKey(rawKey);
                for (int i = start; i < Math.min(count, start + MAX_SETS_PER_COMMAND); i++) {
                    args.add(SET).add(U1).add(offsets[i]).add(1);
                }
                replies.add(commands.dispatch(BITFIELD, new BitsOutput(), args));
            }
            for (RedisFuture<?> reply : replies) {
                await(reply, operationTimeout, "BITFIELD SET");
            }
            return null;
        });
    }

    @Override
    public void writeBitmap(String key, byte[] bitmap, Duration expiry) {
        byte[] rawKey = bytes(key);
        int first = Math.min(bitmap.length, UPLOAD_CHUNK_BYTES);
        call(commands -> commands.set(rawKey, Arrays.copyOf(bitmap, first), SetArgs.Builder.px(expiry)),
                operationTimeout, "SET");
        for (int offset = first; offset < bitmap.length; offset += UPLOAD_CHUNK_BYTES) {
            byte[] chunk = Arrays.copyOfRange(bitmap, offset, Math.min(bitmap.length, offset + UPLOAD_CHUNK_BYTES));
            long at = offset;
            call(commands -> commands.setrange(rawKey, at, chunk), operationTimeout, "SETRANGE");
        }
    }

    @Override
    public void persist(String key) {
        call(commands -> commands.persist(bytes(key)), operationTimeout, "PERSIST");
    }

    @Override
    public void rename(String source, String target) {
        call(commands -> commands.rename(bytes(source), bytes(target)), operationTimeout, "RENAME");
    }

    @Override
    public void delete(String key) {
        call(commands -> commands.del(bytes(key)), operationTimeout, "DEL");
    }

    @Override
    public long length(String key) {
        Long length = call(commands -> commands.strlen(bytes(key)), operationTimeout, "STRLEN");
        return length == null ? 0 : length;
    }

    private <T> T call(Function<RedisClusterAsyncCommands<byte[], byte[]>, RedisFuture<T>> command,
            Duration timeout, String name) {
        return withCommands(commands -> await(command.apply(commands), timeout, name));
    }

    private <T> T withCommands(Function<RedisClusterAsyncCommands<byte[], byte[]>, T> work) {
        RedisConnection connection;
        try {
            connection = connectionFactory.getConnection();
        }
        catch (RuntimeException ex) {
            throw new BitmapStoreException("no Redis connection: " + ex.getMessage(), ex);
        }
        try {
            if (!(connection instanceof LettuceConnection lettuce)) {
                throw new IllegalStateException("bloom-guard needs Lettuce; the connection is a "
                        + connection.getClass().getName());
            }
            return work.apply(lettuce.getNativeConnection());
        }
        finally {
            connection.close();
        }
    }

    private static <T> T await(RedisFuture<T> reply, Duration timeout, String name) {
        try {
            return reply.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        }
        catch (TimeoutException ex) {
            reply.cancel(false);
            throw new BitmapStoreException(name + " did not answer within " + timeout, ex);
        }
        catch (ExecutionException ex) {
            Throwable cause = ex.getCause() == null ? ex : ex.getCause();
            throw new BitmapStoreException(name + " failed: " + cause.getMessage(), cause);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            reply.cancel(false);
            throw new BitmapStoreException(name + " was interrupted", ex);
        }
    }

    private static byte[] bytes(String key) {
        return key.getBytes(StandardCharsets.UTF_8);
    }

    private static ProtocolKeyword keyword(String name) {
        byte[] raw = name.getBytes(StandardCharsets.US_ASCII);
        return new ProtocolKeyword() {
            @Override
            public byte[] getBytes() {
                return raw;
            }

            @Override
            public String toString() {
                return name;
            }
        };
    }

    /** Collects a {@code BITFIELD} reply of 0/1 integers as the set of indexes that were 1. */
    private static final class BitsOutput extends CommandOutput<byte[], byte[], BitSet> {

        private int index;

        BitsOutput() {
            super(ByteArrayCodec.INSTANCE, new BitSet());
        }

        @Override
        public void set(long integer) {
            if (integer != 0) {
                output.set(index);
            }
            index++;
        }
    }
}
