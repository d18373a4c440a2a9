package dev.bloomguard.spring.resilience;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.context.ConfigurableApplicationContext;

import dev.bloomguard.embedded.RedisServer;
import dev.bloomguard.spring.BloomGuardRejectedException;
import dev.bloomguard.spring.RealServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * Issue 11, path 5: a rolling deploy that changes {@code expected-insertions} runs an old and a
 * new instance side by side, the filter under other Redis keys for each. Rows created through
 * either must be found through both, at every moment of the rollout; when the old instance is
 * gone, its generation's keys are deleted after the grace period, and the new one still blocks
 * absent keys and finds every row.
 */
class RollingConfigChangeTests {

    private static final String TABLE = "rollout_users";
    private static final String[] FAST_ROLLOUT = { "bloom-guard.rollout.heartbeat-interval=200ms",
            "bloom-guard.rollout.grace-period=2s", "bloom-guard.journal.retention=1s" };

    @ParameterizedTest
    @EnumSource(GuardedApp.Source.class)
    void rowsCreatedThroughEitherConfigurationAreFoundThroughBothDuringAndAfterTheRollout(GuardedApp.Source source) throws Exception {
        RealServers.execute("DROP TABLE IF EXISTS " + TABLE, "CREATE TABLE " + TABLE + " (id BIGINT PRIMARY KEY)",
                "INSERT INTO " + TABLE + " SELECT 2 * g FROM generate_series(1, 5000) g");
        String warmup = "SELECT id FROM " + TABLE;
        List<String> newConfig = new ArrayList<>(List.of(FAST_ROLLOUT));
        newConfig.add("bloom-guard.filters.user.expected-insertions=200000");
        try (RedisServer redis = RedisServer.start();
                RedisClient client = RedisClient.create("redis://127.0.0.1:" + redis.port());
                StatefulRedisConnection<String, String> admin = client.connect()) {
            ConfigurableApplicationContext old = GuardedApp.start(source, redis.port(), "rollout", TABLE, warmup, FAST_ROLLOUT);
            GuardedApp.Directory oldInstance = old.getBean(GuardedApp.Directory.class);
            List<Long> created = new ArrayList<>();
            created.add(oldInstance.create());
            String oldLive = onlyLiveKey(admin);

            try (ConfigurableApplicationContext upgraded = GuardedApp.start(source, redis.port(), "rollout", TABLE, warmup,
                    newConfig.toArray(String[]::new))) {
                GuardedApp.Directory newInstance = upgraded.getBean(GuardedApp.Directory.class);
                assertThat(liveKeys(admin)).as("the new configuration's generation beside the old").hasSize(2);

                // Through the rollout (the new instance switches to its own generation meanwhile):
                // every row created through either instance is found through both.
                long until = System.nanoTime() + Duration.ofSeconds(4).toNanos();
                while (System.nanoTime() < until) {
                    created.add(oldInstance.create());
                    created.add(newInstance.create());
                    assertFoundThroughEach(created, oldInstance, newInstance);
                    Thread.sleep(50);
                }
                assertThat(GuardedApp.rejectedWithin(oldInstance, Duration.ofSeconds(5))).isGreaterThan(950);
                assertThat(GuardedApp.rejectedWithin(newInstance, Duration.ofSeconds(5))).isGreaterThan(950);

                old.close(); // the last old instance goes: the rollout is over
                created.add(newInstance.create());
                long closed = System.nanoTime();
                String oldGeneration = "rollout:{user:" + oldLive.split(":")[2] + ":*";
                while (!admin.sync().keys(oldGeneration).isEmpty()) {
                    assertThat(Duration.ofNanos(System.nanoTime() - closed))
                            .as("time the unused generation's keys outlive the grace period").isLessThan(Duration.ofSeconds(8));
                    assertFoundThroughEach(created, newInstance);
                    Thread.sleep(100);
                }
                assertThat(liveKeys(admin)).as("only the new generation is left").hasSize(1).doesNotContain(oldLive);
                created.add(newInstance.create());
                assertFoundThroughEach(created, newInstance);
                assertThat(GuardedApp.rejectedWithin(newInstance, Duration.ofSeconds(5))).isGreaterThan(950);
            }
            finally {
                old.close();
            }
        }
    }

    /**
     * A rolling deploy that changes the warmup query (here it leaves out half the rows, as a new
     * {@code WHERE deleted = false} would): once the new instance loads the filter from its
     * query, the old instance, whose query still returns those rows, must not block them.
     */
    @ParameterizedTest
    @EnumSource(GuardedApp.Source.class)
    void anInstanceOfTheOldWarmupQueryBlocksNoneOfItsRowsOnceTheNewQueryIsLoaded(GuardedApp.Source source) throws Exception {
        RealServers.execute("DROP TABLE IF EXISTS " + TABLE, "CREATE TABLE " + TABLE + " (id BIGINT PRIMARY KEY)",
                "INSERT INTO " + TABLE + " SELECT 2 * g FROM generate_series(1, 5000) g");
        Duration check = Duration.ofMillis(200);
        String[] fastCheck = { "bloom-guard.rewind-check-interval=" + check.toMillis() + "ms" };
        try (RedisServer redis = RedisServer.start();
                ConfigurableApplicationContext old = GuardedApp.start(source, redis.port(), "rollout-sql", TABLE,
                        "SELECT id FROM " + TABLE, fastCheck)) {
            GuardedApp.Directory oldInstance = old.getBean(GuardedApp.Directory.class);
            assertThat(GuardedApp.rejected(oldInstance)).isGreaterThan(950);
            long[] onlyInOldQuery = { 5_002, 7_500, 9_998, 10_000 };

            try (ConfigurableApplicationContext upgraded = GuardedApp.start(source, redis.port(), "rollout-sql", TABLE,
                    "SELECT id FROM " + TABLE + " WHERE id <= 5000", fastCheck)) {
                long loaded = System.nanoTime(); // the new instance's startup loaded its query
                for (long id : onlyInOldQuery) {
                    GuardedApp.foundWithin(oldInstance, id, loaded, check.plusSeconds(2),
                            "time the old instance blocks a row its own query returns");
                }
                for (int round = 0; round < 20; round++) {
                    for (long id : onlyInOldQuery) {
                        assertThat(oldInstance.find(id)).isEqualTo(id);
                    }
                    Thread.sleep(check.toMillis() / 2);
                }
                assertThat(GuardedApp.rejected(upgraded.getBean(GuardedApp.Directory.class)))
                        .as("the new query's filter blocks absent keys").isGreaterThan(950);
            }
        }
    }

    /**
     * A rolling deploy that changes the geometry and the warmup query at once. The old instance
     * (its geometry, a query that leaves out the newest rows) and the new one (another geometry,
     * a query that leaves out the oldest, as a new {@code WHERE} would) each write to both
     * generations, and the new one answers from the old generation until its own covers every
     * writer. Neither may block a row its own query returns, nor one created through either, at
     * any moment of the rollout; once the old instance is gone the new one blocks absent keys.
     */
    @ParameterizedTest
    @EnumSource(GuardedApp.Source.class)
    void neitherInstanceBlocksItsQuerysRowsWhenGeometryAndWarmupQueryChangeTogether(GuardedApp.Source source)
            throws Exception {
        RealServers.execute("DROP TABLE IF EXISTS " + TABLE, "CREATE TABLE " + TABLE + " (id BIGINT PRIMARY KEY)",
                "INSERT INTO " + TABLE + " SELECT 2 * g FROM generate_series(1, 2000) g");
        // Rows 2..1000 only the old query returns, 3002..4000 only the new one.
        List<Long> oldQueryRows = LongStream.rangeClosed(1, 1500).map(i -> 2 * i).boxed().toList();
        List<Long> newQueryRows = LongStream.rangeClosed(501, 2000).map(i -> 2 * i).boxed().toList();
        List<String> newConfig = new ArrayList<>(List.of(FAST_ROLLOUT));
        newConfig.add("bloom-guard.filters.user.expected-insertions=200000");
        try (RedisServer redis = RedisServer.start();
                RedisClient client = RedisClient.create("redis://127.0.0.1:" + redis.port());
                StatefulRedisConnection<String, String> admin = client.connect()) {
            ConfigurableApplicationContext old = GuardedApp.start(source, redis.port(), "rollout", TABLE,
                    "SELECT id FROM " + TABLE + " WHERE id <= 3000", FAST_ROLLOUT);
            try {
                GuardedApp.Directory oldInstance = old.getBean(GuardedApp.Directory.class);
                List<Long> created = new ArrayList<>();
                try (ConfigurableApplicationContext upgraded = GuardedApp.start(source, redis.port(), "rollout", TABLE,
                        "SELECT id FROM " + TABLE + " WHERE id > 1000", newConfig.toArray(String[]::new))) {
                    GuardedApp.Directory newInstance = upgraded.getBean(GuardedApp.Directory.class);
                    assertThat(liveKeys(admin)).as("the new configuration's generation beside the old").hasSize(2);

                    long until = System.nanoTime() + Duration.ofSeconds(4).toNanos();
                    while (System.nanoTime() < until) {
                        created.add(oldInstance.create());
                        created.add(newInstance.create());
                        assertFoundThroughEach(Stream.concat(newQueryRows.stream(), created.stream()).toList(), newInstance);
                        assertFoundThroughEach(Stream.concat(oldQueryRows.stream(), created.stream()).toList(), oldInstance);
                    }

                    old.close(); // the last old instance goes: the rollout is over
                    until = System.nanoTime() + Duration.ofSeconds(4).toNanos();
                    while (System.nanoTime() < until) {
                        created.add(newInstance.create());
                        assertFoundThroughEach(Stream.concat(newQueryRows.stream(), created.stream()).toList(), newInstance);
                    }
                    assertThat(GuardedApp.rejectedWithin(newInstance, Duration.ofSeconds(5)))
                            .as("absent keys of 1,000 the new instance blocks once the rollout is over")
                            .isGreaterThanOrEqualTo(900);
                }
            }
            finally {
                old.close();
            }
        }
    }

    private static void assertFoundThroughEach(List<Long> created, GuardedApp.Directory... instances) {
        for (GuardedApp.Directory instance : instances) {
            for (long id : created) {
                try {
                    instance.find(id);
                }
                catch (BloomGuardRejectedException ex) {
                    throw new AssertionError("row " + id + " exists and was blocked", ex);
                }
            }
        }
    }

    /** The live bitmaps of filter 'user' (one per generation): keys like {@code rollout:{user:m958528k7:0}}. */
    private static List<String> liveKeys(StatefulRedisConnection<String, String> admin) {
        return admin.sync().keys("rollout:{user:m*}").stream().sorted().toList();
    }

    private static String onlyLiveKey(StatefulRedisConnection<String, String> admin) {
        List<String> live = liveKeys(admin);
        assertThat(live).hasSize(1);
        return live.get(0);
    }
}
