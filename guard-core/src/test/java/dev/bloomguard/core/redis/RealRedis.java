package dev.bloomguard.core.redis;

import java.time.Duration;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import dev.bloomguard.testsupport.RedisServerExtension;

/**
 * A real redis-server for one test class ({@link RedisServerExtension}), with a Lettuce client and
 * a store on it: {@code @RegisterExtension static final RealRedis REDIS = new RealRedis();}.
 * Started before the class's tests, stopped after them.
 */
public final class RealRedis implements BeforeAllCallback, AfterAllCallback {

    private final Duration storeTimeout;
    private final RedisServerExtension server = new RedisServerExtension();
    private LettuceClients client;
    private BitmapStore store;

    /** A store whose operations time out after 10 seconds. */
    public RealRedis() {
        this(Duration.ofSeconds(10));
    }

    /** @param storeTimeout the operation timeout of {@link #store()} */
    public RealRedis(Duration storeTimeout) {
        this.storeTimeout = storeTimeout;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        server.beforeAll(context);
        client = LettuceClients.standalone(server.port());
        store = LettuceBitmapStore.create(client, storeTimeout);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        client.close();
        server.afterAll(context);
    }

    public BitmapStore store() {
        return store;
    }

    public LettuceClients client() {
        return client;
    }

    public int port() {
        return server.port();
    }
}
