package dev.bloomguard.test.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.stream.LongStream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.bloomguard.core.Membership;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.embedded.PostgresServer;
import dev.bloomguard.test.memory.InMemoryBitmapStore;
import dev.bloomguard.testsupport.AbsentKeys;
import dev.bloomguard.testsupport.PostgresExtension;

/**
 * A whole application, as an application's own {@code @SpringBootTest} starts it: every
 * auto-configuration, Spring Data Redis pointed at a Redis that never answers, a PostgreSQL database
 * whose rows {@code warmup.sql} loads. Under {@link AutoConfigureBloomGuardInMemory} the filter warms
 * from the database into memory, and nothing connects to that Redis.
 */
@SpringBootTest(properties = { "bloom-guard.filters.user.expected-insertions=10000",
        "bloom-guard.filters.user.warmup.sql=SELECT id FROM in_memory_app_users",
        "bloom-guard.filters.account.expected-insertions=1000" })
@AutoConfigureBloomGuardInMemory
class InMemoryApplicationTests {

    /** Where spring.data.redis.* points: it accepts no connection it is not asked for, and none should come. */
    private static final ServerSocket REDIS = openSocket();

    @Autowired
    GuardedUsers users;

    @Autowired
    BloomGuardTester bloomGuard;

    @Autowired
    ApplicationContext context;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) throws SQLException {
        PostgresServer postgres = PostgresExtension.shared();
        try (Connection connection = DriverManager.getConnection(postgres.jdbcUrl(), postgres.username(), postgres.password());
                Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS in_memory_app_users");
            statement.execute("CREATE TABLE in_memory_app_users (id BIGINT PRIMARY KEY)");
            statement.execute("INSERT INTO in_memory_app_users SELECT generate_series(1, 1000)");
        }
        registry.add("spring.datasource.url", postgres::jdbcUrl);
        registry.add("spring.datasource.username", postgres::username);
        registry.add("spring.datasource.password", postgres::password);
        registry.add("spring.data.redis.host", () -> "127.0.0.1");
        registry.add("spring.data.redis.port", REDIS::getLocalPort);
    }

    @AfterAll
    static void nothingConnectedToRedis() throws IOException {
        REDIS.setSoTimeout(200);
        assertThatThrownBy(REDIS::accept).as("a connection to spring.data.redis").isInstanceOf(SocketTimeoutException.class);
        REDIS.close();
    }

    @Test
    void theFiltersAreInMemory() {
        assertThat(context.getBean(BitmapStore.class)).isInstanceOf(InMemoryBitmapStore.class);
    }

    @Test
    void rowsTheWarmupQueryReadPassAndMostAbsentIdsAreRejected() {
        bloomGuard.awaitReady("user");
        int before = users.reads();

        LongStream.rangeClosed(1, 1_000).forEach(id -> bloomGuard.assertPassed(() -> users.find(id)));
        long rejected = LongStream.rangeClosed(1_000_001, 1_001_000)
                .filter(id -> bloomGuard.rejects(() -> users.find(id))).count();

        assertThat(rejected).as("absent ids rejected, of 1,000").isGreaterThan(950);
        assertThat(users.reads() - before).isEqualTo(2_000 - (int) rejected);
    }

    /** Inserted behind the filter's back (not through @BloomPut): blocked, as in production, until preloaded. */
    @Test
    void aRowInsertedAfterTheWarmupIsRejectedUntilPreloaded() throws SQLException {
        bloomGuard.awaitReady("user");
        long inserted = AbsentKeys.first(1, LongStream.iterate(5_000, id -> id + 1),
                id -> bloomGuard.filter("user").check(id) == Membership.ABSENT).get(0);
        PostgresServer postgres = PostgresExtension.shared();
        try (Connection connection = DriverManager.getConnection(postgres.jdbcUrl(), postgres.username(), postgres.password());
                Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO in_memory_app_users VALUES (" + inserted + ")");
        }
        bloomGuard.assertRejected(() -> users.find(inserted));

        bloomGuard.preload("user", inserted);

        bloomGuard.assertPassed(() -> users.find(inserted));
        bloomGuard.assertPassed(() -> users.find(1L));
    }

    private static ServerSocket openSocket() {
        try {
            return new ServerSocket(0);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(GuardedUsers.class)
    static class Application {
    }
}
