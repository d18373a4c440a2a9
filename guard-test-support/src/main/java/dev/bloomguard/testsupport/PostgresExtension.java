package dev.bloomguard.testsupport;

import javax.sql.DataSource;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import dev.bloomguard.embedded.PostgresServer;

/**
 * A real PostgreSQL for a test class:
 * {@code @RegisterExtension static final PostgresExtension POSTGRES = new PostgresExtension();}.
 * Code that runs where no extension is registered (a {@code @DynamicPropertySource} method, a
 * helper several classes call) takes the same server from {@link #shared()}.
 *
 * <p>The one thing to get right: unlike {@link RedisServerExtension}, the server is not the
 * class's own. Embedded PostgreSQL takes seconds to start and dozens of classes use it, so the
 * test JVM starts one, on first use, and stops it when the JVM exits; a class keeps out of the
 * others' way with tables of its own, and must not count on finding the database empty.
 */
public final class PostgresExtension implements BeforeAllCallback, AfterAllCallback {

    private static PostgresServer server;

    private volatile boolean inClass;

    /** The test JVM's PostgreSQL, started on the first call and stopped when the JVM exits. */
    public static synchronized PostgresServer shared() {
        if (server == null) {
            server = PostgresServer.start();
            PostgresServer started = server;
            Runtime.getRuntime().addShutdownHook(new Thread(started::close, "postgres-shutdown"));
        }
        return server;
    }

    /** Starts the JVM's server before the class's first test, if no class has yet, so a failure fails the class there. */
    @Override
    public void beforeAll(ExtensionContext context) {
        shared();
        inClass = true;
    }

    /** Leaves the server running for the JVM's other classes. */
    @Override
    public void afterAll(ExtensionContext context) {
        inClass = false;
    }

    /**
     * The JVM's server, through the class's extension.
     *
     * @throws IllegalStateException outside the class's tests, where {@link #shared()} says what is meant
     */
    public PostgresServer server() {
        if (!inClass) {
            throw new IllegalStateException("The test class's PostgreSQL is only reachable through the extension inside the class's tests:"
                    + " register it as a static field, or call PostgresExtension.shared()");
        }
        return shared();
    }

    public DataSource dataSource() {
        return server().dataSource();
    }
}
