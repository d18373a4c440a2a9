package dev.bloomguard.core.redis;

import java.time.Duration;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.testsupport.RedisServerExtension;
import dev.bloomguard.testsupport.TestNames;

/**
 * A real redis-server for one test class ({@link RedisServerExtension}), with a Lettuce client and
 * a store on it: {@code @RegisterExtension static final RealRedis REDIS = new RealRedis();}.
 * Started before the class's tests, stopped after them. Each test gets a filter name of its own
 * ({@link #filterName()}), so no test finds the keys of another on the shared server.
 */
public final class RealRedis implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback {

    /**
     * How long the filters of {@link #filter} wait for a check: long enough that a slow CI machine
     * cannot turn PRESENT into UNAVAILABLE (tests of timeouts set their own).
     */
    public static final Duration GENEROUS_CHECK_TIMEOUT = Duration.ofSeconds(5);

    private final Duration storeTimeout;
    private final RedisServerExtension server = new RedisServerExtension();
    private LettuceClients client;
    private BitmapStore store;
    private volatile String filterName;

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
    public void beforeEach(ExtensionContext context) {
        filterName = TestNames.unique(context);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        client.close();
        server.afterAll(context);
    }

    /** The running test's filter name: {@link TestNames#unique}, new for each test. */
    public String filterName() {
        return filterName;
    }

    /**
     * A builder of the filter named {@link #filterName()} on {@link #store()}, whose checks wait
     * {@link #GENEROUS_CHECK_TIMEOUT}.
     */
    public RedisBloomFilter.Builder filter(FilterGeometry geometry) {
        return RedisBloomFilter.builder(filterName(), geometry, store()).checkTimeout(GENEROUS_CHECK_TIMEOUT);
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
