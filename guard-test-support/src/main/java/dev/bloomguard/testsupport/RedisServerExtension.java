package dev.bloomguard.testsupport;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import dev.bloomguard.embedded.RedisServer;

/**
 * A real redis-server of its own for one test class:
 * {@code @RegisterExtension static final RedisServerExtension REDIS = new RedisServerExtension();}.
 * Started before the class's first test and stopped after its last, so a class that flushes,
 * stops or reconfigures its server disturbs no other class. {@link #admin()} is a connection of
 * the test's own beside whatever the code under test connects with, to look at what Redis holds
 * and was sent.
 */
public final class RedisServerExtension implements BeforeAllCallback, AfterAllCallback {

    private RedisServer server;
    private RedisClient adminClient;
    private StatefulRedisConnection<String, String> adminConnection;

    @Override
    public void beforeAll(ExtensionContext context) {
        server = RedisServer.start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (adminConnection != null) {
            adminConnection.close();
            adminConnection = null;
        }
        if (adminClient != null) {
            adminClient.shutdown();
            adminClient = null;
        }
        if (server != null) {
            server.close();
            server = null;
        }
    }

    /** @throws IllegalStateException outside the class's tests, before the server started */
    public RedisServer server() {
        if (server == null) {
            throw new IllegalStateException("The test class's redis-server is not running: register the extension as a static field");
        }
        return server;
    }

    public String host() {
        return server().host();
    }

    public int port() {
        return server().port();
    }

    /** The test's own connection to the server, opened on first use and closed after the class. */
    public synchronized RedisCommands<String, String> admin() {
        if (adminConnection == null) {
            adminConnection = adminClient().connect();
        }
        return adminConnection.sync();
    }

    /**
     * The Lettuce client behind {@link #admin()}, for the connections a test opens itself (pub/sub,
     * another codec); shut down after the class.
     */
    public synchronized RedisClient adminClient() {
        if (adminClient == null) {
            adminClient = RedisClient.create(RedisURI.create(host(), port()));
        }
        return adminClient;
    }

    /**
     * How many times the server ran {@code command} (lower case, e.g. {@code "evalsha"}) since it
     * started, from {@code INFO commandstats}: how a test sees which commands a path sent.
     */
    public long commandCalls(String command) {
        return admin().info("commandstats").lines().filter(line -> line.startsWith("cmdstat_" + command + ":"))
                .map(line -> Long.parseLong(line.replaceAll("^[^:]*:calls=(\\d+),.*", "$1"))).findFirst().orElse(0L);
    }
}
