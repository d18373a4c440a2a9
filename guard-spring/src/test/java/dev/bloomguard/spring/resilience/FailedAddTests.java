package dev.bloomguard.spring.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.embedded.RedisServer;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BloomGuardException;
import dev.bloomguard.spring.BloomGuardRejectedException;
import dev.bloomguard.testsupport.Await;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * A row commits, then Redis refuses its {@code @BloomPut} add (here: {@code NOREPLICAS}, as a
 * primary that lost its replicas answers; OOM and READONLY look the same to the guard) while
 * checks, which only read, still work. Without a surrounding transaction the row cannot be
 * rolled back, so the add is retried until it lands; meanwhile the instance that made it does
 * not block the filter, and once Redis accepts writes again every instance finds the row
 * within the stated bound (a retry is at most 5 s away).
 */
class FailedAddTests {

    private static final String TABLE = "failed_add_users";
    private static final Duration BOUND = Duration.ofSeconds(5);

    @Test
    void aCommittedRowWhoseAddRedisRefusedIsNotBlockedAndReachesEveryInstanceOnceRedisTakesWrites() throws Exception {
        GuardedApp.createUsers(TABLE, 5000);
        String warmup = "SELECT id FROM " + TABLE;
        try (RedisServer redis = RedisServer.start();
                RedisClient client = RedisClient.create("redis://127.0.0.1:" + redis.port());
                StatefulRedisConnection<String, String> admin = client.connect();
                ConfigurableApplicationContext writer = GuardedApp.start(redis.port(), "failed-add", TABLE, warmup,
                        "bloom-guard.redis-timeout=2s");
                ConfigurableApplicationContext reader = GuardedApp.start(redis.port(), "failed-add", TABLE, warmup,
                        "bloom-guard.redis-timeout=2s")) {
            GuardedApp.Directory writing = writer.getBean(GuardedApp.Directory.class);
            GuardedApp.Directory reading = reader.getBean(GuardedApp.Directory.class);

            admin.sync().configSet("min-replicas-to-write", "1");
            long created = writing.create();
            JdbcTemplate jdbc = writer.getBean(JdbcTemplate.class);
            assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE + " WHERE id = ?", Long.class, created))
                    .as("the row committed").isEqualTo(1);
            assertThatCode(() -> writing.find(created)).as("the instance whose add failed does not block the row")
                    .doesNotThrowAnyException();
            assertThat(writer.getBean(MeterRegistry.class).get("bloomguard.checks")
                    .tag("filter", "user").tag("outcome", "bypassed").tag("reason", "suspended").counter().count())
                    .as("reason=suspended").isPositive();
            assertThat(writer.getBean(MeterRegistry.class).get("bloomguard.adds.failed").tag("filter", "user")
                    .counter().count()).as("the refused add, handed to the retry queue").isEqualTo(1);
            assertThat(writer.getBean(MeterRegistry.class).get("bloomguard.adds").tag("filter", "user")
                    .counter().count()).isZero();

            admin.sync().configSet("min-replicas-to-write", "0");
            GuardedApp.foundWithin(reading, created, System.nanoTime(), BOUND.plusSeconds(2),
                    "time another instance blocks the committed row after Redis takes writes again");
            assertThatCode(() -> writing.find(created)).doesNotThrowAnyException();
            // The same path still rejects what does not exist, on both instances, once the add has landed.
            assertThat(rejectedOnceAddsLanded(writing)).isGreaterThan(950);
            assertThat(rejectedOnceAddsLanded(reading)).isGreaterThan(950);
        }
    }

    /**
     * The retry lands while a check of the row is on its way back from Redis, which read the bits
     * before the retry set them: that clear bit must not block the row because the retry, done
     * by the time the answer is looked at, no longer suspends the filter.
     */
    @Test
    void aCheckSentWhileTheAddWasStillRetriedDoesNotBlockTheRowWhenTheRetryLandsBeforeItsAnswer() throws Exception {
        GuardedApp.createUsers(TABLE, 5000);
        try (RedisServer redis = RedisServer.start();
                RedisClient client = RedisClient.create("redis://127.0.0.1:" + redis.port());
                StatefulRedisConnection<String, String> admin = client.connect();
                ConfigurableApplicationContext writer = GuardedApp.start(redis.port(), "failed-add-late", TABLE,
                        "SELECT id FROM " + TABLE, "bloom-guard.redis-timeout=2s", "guarded.hook-reads=true")) {
            GuardedApp.Directory writing = writer.getBean(GuardedApp.Directory.class);
            RedisBloomFilter filter = writer.getBean(BloomFilterRegistry.class).filter("user");
            admin.sync().configSet("min-replicas-to-write", "1");
            long created = writing.create();
            assertThat(writer.getBean(MeterRegistry.class).get("bloomguard.adds.failed").tag("filter", "user")
                    .counter().count()).as("the refused add, handed to the retry queue").isEqualTo(1);

            writer.getBean(GuardedApp.ReadHook.class).afterNextRead(() -> {
                // Redis has read the row's bits, still clear; before the answer is looked at, the retry lands.
                admin.sync().configSet("min-replicas-to-write", "0");
                Await.until("the retry landed", BOUND, () -> filter.check(created) == Membership.PRESENT);
                sleep(300); // and the retry queue has let go of the filter
            });
            assertThatCode(() -> writing.find(created)).as("the committed row").doesNotThrowAnyException();

            assertThatCode(() -> writing.find(created)).doesNotThrowAnyException();
            assertThat(rejectedOnceAddsLanded(writing)).as("the same path blocks absent ids").isGreaterThan(950);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new AssertionError(ex);
        }
    }

    @Test
    void aTransactionalWriteWhoseAddRedisRefusesRollsItsRowBack() throws Exception {
        GuardedApp.createUsers(TABLE, 5000);
        try (RedisServer redis = RedisServer.start();
                RedisClient client = RedisClient.create("redis://127.0.0.1:" + redis.port());
                StatefulRedisConnection<String, String> admin = client.connect();
                ConfigurableApplicationContext app = GuardedApp.start(redis.port(), "failed-add-tx", TABLE,
                        "SELECT id FROM " + TABLE, "bloom-guard.redis-timeout=2s")) {
            GuardedApp.Directory directory = app.getBean(GuardedApp.Directory.class);
            JdbcTemplate jdbc = app.getBean(JdbcTemplate.class);
            long rowsBefore = jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE, Long.class);

            admin.sync().configSet("min-replicas-to-write", "1");
            assertThatThrownBy(directory::createInTransaction).isInstanceOf(BloomGuardException.class)
                    .isNotInstanceOf(BloomGuardRejectedException.class);
            assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM " + TABLE, Long.class))
                    .as("the add failed before the commit, so the row was rolled back").isEqualTo(rowsBefore);

            admin.sync().configSet("min-replicas-to-write", "0");
            long created = directory.createInTransaction();
            assertThatCode(() -> directory.find(created)).doesNotThrowAnyException();
            assertThat(rejectedOnceAddsLanded(directory)).isGreaterThan(950);
        }
    }

    private static long rejectedOnceAddsLanded(GuardedApp.Directory directory) throws InterruptedException {
        return GuardedApp.rejectedWithin(directory, BOUND.plusSeconds(2));
    }
}
