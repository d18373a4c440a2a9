package dev.bloomguard.testsupport;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import dev.bloomguard.embedded.RedisServer;

/**
 * A real master redis-server and a Sentinel watching it, of their own for one test class:
 * {@code @RegisterExtension static final RedisSentinelExtension SENTINEL = new RedisSentinelExtension("my-master");}.
 * Started before the class's first test and stopped after its last.
 *
 * <p>The one thing to get right: a client configured with Sentinel is given
 * {@link #sentinelAddress()} and {@link #masterName()}, never the master's port, or the test
 * proves nothing about Sentinel. {@link #master()} is for the test's own look at what the master
 * holds. There is no replica, so nothing fails over.
 */
public final class RedisSentinelExtension implements BeforeAllCallback, AfterAllCallback {

    private final String masterName;
    private RedisServer master;
    private RedisServer sentinel;

    /** @param masterName the name the Sentinel knows the master by, which a client asks for */
    public RedisSentinelExtension(String masterName) {
        if (masterName == null || masterName.isBlank()) {
            throw new IllegalArgumentException("masterName (" + masterName + ") must not be blank");
        }
        this.masterName = masterName;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        master = RedisServer.start();
        sentinel = RedisServer.startSentinel(masterName, master.port());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (sentinel != null) {
            sentinel.close();
            sentinel = null;
        }
        if (master != null) {
            master.close();
            master = null;
        }
    }

    public String masterName() {
        return masterName;
    }

    /** @throws IllegalStateException outside the class's tests, before the servers started or after they stopped */
    public RedisServer master() {
        if (master == null) {
            throw notRunning();
        }
        return master;
    }

    /** @throws IllegalStateException outside the class's tests, before the servers started or after they stopped */
    public RedisServer sentinel() {
        if (sentinel == null) {
            throw notRunning();
        }
        return sentinel;
    }

    /** {@code host:port} of the Sentinel, for a client's or a {@code sentinel.nodes} property's node list. */
    public String sentinelAddress() {
        return sentinel().host() + ":" + sentinel().port();
    }

    private static IllegalStateException notRunning() {
        return new IllegalStateException("The test class's Redis master and Sentinel are not running: register the extension as a static field");
    }
}
