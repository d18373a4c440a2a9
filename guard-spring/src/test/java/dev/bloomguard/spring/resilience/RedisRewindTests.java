package dev.bloomguard.spring.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.time.Duration;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.context.ConfigurableApplicationContext;

import dev.bloomguard.embedded.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * Issue 11, path 2: Redis restarts from a snapshot taken before a row's {@code @BloomPut} add
 * (a crash with RDB persistence; a failover to a replica that lagged looks the same). The
 * filter comes back ready but without the add. Within the rewind check interval an instance
 * that saw the add's count notices, every instance bypasses the filter, the warmer reloads it
 * from the database, and from then on it blocks absent keys again.
 */
class RedisRewindTests {

    private static final String TABLE = "rewind_users";
    private static final Duration REWIND_CHECK = Duration.ofMillis(500);
    /** The check interval, plus the reconnect to the restarted Redis and a busy CI machine's margin. */
    private static final Duration BOUND = REWIND_CHECK.plusSeconds(4);

    @ParameterizedTest
    @EnumSource(GuardedApp.Source.class)
    void aRowAddedAfterTheSnapshotRedisRestartedFromIsNotBlockedBeyondTheRewindCheck(GuardedApp.Source source) throws Exception {
        GuardedApp.createUsers(TABLE, 5000);
        String warmup = "SELECT id FROM " + TABLE;
        String check = "bloom-guard.rewind-check-interval=" + REWIND_CHECK.toMillis() + "ms";
        try (RedisServer redis = RedisServer.start();
                RedisClient client = RedisClient.create("redis://127.0.0.1:" + redis.port());
                StatefulRedisConnection<String, String> admin = client.connect();
                ConfigurableApplicationContext writer = GuardedApp.start(source, redis.port(), "rewind", TABLE, warmup, check);
                ConfigurableApplicationContext reader = GuardedApp.start(source, redis.port(), "rewind", TABLE, warmup, check)) {
            GuardedApp.Directory writing = writer.getBean(GuardedApp.Directory.class);
            GuardedApp.Directory reading = reader.getBean(GuardedApp.Directory.class);
            assertThat(GuardedApp.rejected(reading)).as("the filter blocks before the rewind").isGreaterThan(950);

            admin.sync().save();
            long created = writing.create();
            assertThatCode(() -> reading.find(created)).doesNotThrowAnyException();

            redis.restart(); // back to the snapshot: the filter is ready, and lacks the add
            long restarted = System.nanoTime();
            for (GuardedApp.Directory instance : new GuardedApp.Directory[] { reading, writing }) {
                GuardedApp.foundWithin(instance, created, restarted, BOUND,
                        "time an instance blocks a committed row after Redis came back older");
            }

            // Reloaded from the database, the filter blocks again, and still finds the row.
            assertThat(GuardedApp.rejectedWithin(reading, Duration.ofSeconds(20))).isGreaterThan(950);
            assertThat(GuardedApp.rejectedWithin(writing, Duration.ofSeconds(20))).isGreaterThan(950);
            assertThatCode(() -> reading.find(created)).doesNotThrowAnyException();
            assertThatCode(() -> writing.find(created)).doesNotThrowAnyException();
        }
    }
}
