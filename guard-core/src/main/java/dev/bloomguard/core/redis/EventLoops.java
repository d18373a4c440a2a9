package dev.bloomguard.core.redis;

import java.lang.reflect.Field;
import java.lang.reflect.Method;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.protocol.DefaultEndpoint;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;

/**
 * The I/O event loops that read a Lettuce connection's replies, for {@link InstancePauses} to
 * measure. Lettuce does not publish a connection's channel, so it is read from the endpoint
 * behind the connection's writer (through the writers that wrap it: command expiry, a cluster's
 * distribution). Where that fails (another Lettuce, a writer of the application's own), the
 * meter measures the process's pauses without the loops', and says so once at DEBUG.
 */
final class EventLoops {

    private static final Logger log = LoggerFactory.getLogger(EventLoops.class);
    private static final Field CHANNEL = channelField();

    private EventLoops() {
    }

    /** The event loop group of {@code commands}' connection, or null when it cannot be found. */
    static EventLoopGroup of(RedisClusterAsyncCommands<byte[], byte[]> commands) {
        Object connection = commands instanceof RedisAsyncCommands<byte[], byte[]> standalone
                ? standalone.getStatefulConnection()
                : commands instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster
                        ? cluster.getStatefulConnection() : null;
        if (CHANNEL == null || !(connection instanceof RedisChannelHandler<?, ?> handler)) {
            return null;
        }
        try {
            Object writer = handler.getChannelWriter();
            for (int depth = 0; depth < 4 && writer != null; depth++) {
                if (writer instanceof DefaultEndpoint endpoint) {
                    Channel channel = (Channel) CHANNEL.get(endpoint);
                    return channel == null ? null : channel.eventLoop().parent();
                }
                writer = wrapped(writer);
            }
        }
        catch (ReflectiveOperationException | RuntimeException ex) {
            log.debug("Cannot find the event loops of {}: the pause meter measures the process only ({})",
                    connection.getClass().getName(), ex.toString());
        }
        return null;
    }

    /** The writer {@code writer} hands commands to: its {@code getDelegate()}, or its one field of a writer's type. */
    private static Object wrapped(Object writer) throws ReflectiveOperationException {
        for (Method method : writer.getClass().getMethods()) {
            if (method.getName().equals("getDelegate") && method.getParameterCount() == 0
                    && RedisChannelWriter.class.isAssignableFrom(method.getReturnType())) {
                return method.invoke(writer);
            }
        }
        for (Class<?> type = writer.getClass(); type != Object.class; type = type.getSuperclass()) {
            for (Field field : type.getDeclaredFields()) {
                if (RedisChannelWriter.class.isAssignableFrom(field.getType())) {
                    field.setAccessible(true);
                    return field.get(writer);
                }
            }
        }
        return null;
    }

    private static Field channelField() {
        try {
            Field field = DefaultEndpoint.class.getDeclaredField("channel");
            field.setAccessible(true);
            return field;
        }
        catch (ReflectiveOperationException | RuntimeException ex) {
            log.debug("Lettuce's endpoint has no channel field: the pause meter measures the process only ({})",
                    ex.toString());
            return null;
        }
    }
}
