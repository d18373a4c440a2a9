package dev.bloomguard.spring.resilience;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.context.ConfigurableApplicationContext;

import dev.bloomguard.core.Hold;
import dev.bloomguard.core.LoadReport;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.embedded.RedisServer;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BloomGuardRejectedException;
import dev.bloomguard.spring.RealServers;
import dev.bloomguard.spring.warmup.FilterWarmer;
import dev.bloomguard.testsupport.Await;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

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
        GuardedApp.createUsers(TABLE, 5000);
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
                String oldGeneration = "rollout:v1:{user:" + oldLive.split(":")[3] + ":*";
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
        GuardedApp.createUsers(TABLE, 5000);
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
                foundWithinThenAlways(oldInstance, onlyInOldQuery, loaded, check, 20,
                        "time the old instance blocks a row its own query returns");
                assertThat(GuardedApp.rejected(upgraded.getBean(GuardedApp.Directory.class)))
                        .as("the new query's filter blocks absent keys").isGreaterThan(950);
            }
        }
    }

    /**
     * An instance that does not warm its filter at startup ({@code warmup.on-startup: false}, its
     * owner loads it) still knows its warmup query: once another instance loads the filter from
     * another query, it must not block the rows only its own query returns, as an instance that
     * warms must not.
     */
    @Test
    void anInstanceThatDoesNotWarmAtStartupBlocksNoneOfItsQuerysRowsWhenAnotherQueryIsLoaded() throws Exception {
        GuardedApp.createUsers(TABLE, 5000);
        Duration check = Duration.ofMillis(200);
        try (RedisServer redis = RedisServer.start();
                ConfigurableApplicationContext notWarming = GuardedApp.start(redis.port(), "rollout-owned", TABLE,
                        "SELECT id FROM " + TABLE, "bloom-guard.rewind-check-interval=" + check.toMillis() + "ms",
                        "bloom-guard.filters.user.warmup.on-startup=false")) {
            GuardedApp.Directory notWarmingInstance = notWarming.getBean(GuardedApp.Directory.class);
            long[] onlyInItsQuery = { 5_002, 7_500, 9_998, 10_000 };

            try (ConfigurableApplicationContext other = GuardedApp.start(redis.port(), "rollout-owned", TABLE,
                    "SELECT id FROM " + TABLE + " WHERE id <= 5000",
                    "bloom-guard.rewind-check-interval=" + check.toMillis() + "ms")) {
                long loaded = System.nanoTime(); // the other instance's startup loaded its query
                foundWithinThenAlways(notWarmingInstance, onlyInItsQuery, loaded, check, 20,
                        "time the instance that does not warm blocks a row its own query returns");
                assertThat(GuardedApp.rejected(other.getBean(GuardedApp.Directory.class)))
                        .as("the other query's filter blocks absent keys").isGreaterThan(950);
            }
        }
    }

    /**
     * The owner of a filter that is not warmed at startup may load it through the API without
     * naming a source ({@code load(Iterator)}): nothing then says another query built it, and
     * nothing on this instance would ever load it again, so it blocks absent keys, as it did
     * before instances that do not warm looked at the live filter's source at all.
     */
    @Test
    void anInstanceThatDoesNotWarmAtStartupBlocksOnceItsOwnerLoadsTheFilterWithoutNamingASource() throws Exception {
        GuardedApp.createUsers(TABLE, 5000);
        Duration check = Duration.ofMillis(200);
        try (RedisServer redis = RedisServer.start();
                ConfigurableApplicationContext notWarming = GuardedApp.start(redis.port(), "owner-loaded", TABLE,
                        "SELECT id FROM " + TABLE, "bloom-guard.rewind-check-interval=" + check.toMillis() + "ms",
                        "bloom-guard.filters.user.warmup.on-startup=false")) {
            GuardedApp.Directory directory = notWarming.getBean(GuardedApp.Directory.class);
            RedisBloomFilter filter = notWarming.getBean(BloomFilterRegistry.class).filter("user");
            filter.load(LongStream.rangeClosed(1, 5000).map(i -> 2 * i).boxed().iterator());
            Thread.sleep(check.multipliedBy(5).toMillis()); // the warmer looks at the live filter's source meanwhile

            assertThat(GuardedApp.rejectedWithin(directory, Duration.ofSeconds(5)))
                    .as("absent keys blocked once the owner loaded the filter").isGreaterThan(950);
            for (long id = 2; id <= 10_000; id += 2) {
                assertThat(directory.find(id)).isEqualTo(id);
            }
        }
    }

    /**
     * An instance whose load waits for another instance's lock (a rebuild asked of it, or a re-warm
     * after Redis lost the filter) must still notice when that other instance, of the other query
     * of a rolling deploy, swaps its bitmap in first: it must not block the rows only its own query
     * returns until its own load has read its whole, slow, query.
     */
    @Test
    void anInstanceWaitingToLoadBlocksNoneOfItsQuerysRowsWhileAnotherQuerysLoadSwapsFirst() throws Exception {
        GuardedApp.createUsers(TABLE, 5000);
        Duration check = Duration.ofMillis(200);
        String slowPause = "WITH pause AS (SELECT pg_sleep(5)) ";
        try (RedisServer redis = RedisServer.start();
                ConfigurableApplicationContext old = GuardedApp.start(redis.port(), "rollout-waiting", TABLE,
                        slowPause + "SELECT id FROM " + TABLE + ", pause",
                        "bloom-guard.rewind-check-interval=" + check.toMillis() + "ms")) {
            GuardedApp.Directory oldInstance = old.getBean(GuardedApp.Directory.class);
            RedisBloomFilter oldFilter = old.getBean(BloomFilterRegistry.class).filter("user");
            assertThat(GuardedApp.rejected(oldInstance)).as("the old query's filter blocks absent keys").isGreaterThan(950);
            long[] onlyInOldQuery = { 5_002, 7_500, 9_998, 10_000 };

            CompletableFuture<ConfigurableApplicationContext> upgrading = CompletableFuture.supplyAsync(
                    () -> GuardedApp.start(redis.port(), "rollout-waiting", TABLE, "WITH pause AS (SELECT pg_sleep(2)) "
                            + "SELECT id FROM " + TABLE + ", pause WHERE id <= 5000",
                            "bloom-guard.rewind-check-interval=" + check.toMillis() + "ms"));
            Await.until("the new instance holds the load lock", Duration.ofSeconds(30),
                    () -> oldFilter.lockHolder().isPresent());
            CompletableFuture<LoadReport> rebuild = old.getBean(FilterWarmer.class).rebuild("user");
            try (ConfigurableApplicationContext upgraded = upgrading.get(60, TimeUnit.SECONDS)) {
                foundWithinThenAlways(oldInstance, onlyInOldQuery, System.nanoTime(), check, 10,
                        "time the instance waiting to load blocks a row its own query returns");
                rebuild.get(60, TimeUnit.SECONDS);
                assertThat(GuardedApp.rejectedWithin(oldInstance, Duration.ofSeconds(5)))
                        .as("the old instance blocks absent keys once its own query is loaded again").isGreaterThan(950);
                for (long id : onlyInOldQuery) {
                    assertThat(oldInstance.find(id)).isEqualTo(id);
                }
            }
        }
    }

    /**
     * The old instance's warmer suspends blocking while the live filter comes from the new
     * query. Someone else lifting that suspension (an operator's call, a component of the
     * application) must not leave it blocking the rows only its own query returns: the warmer
     * suspends it again at its next look, whatever it recorded itself.
     */
    @Test
    void aSuspensionLiftedFromOutsideWhileAnotherQuerysFilterIsLiveIsRestoredAtTheNextLook() throws Exception {
        GuardedApp.createUsers(TABLE, 5000);
        Duration check = Duration.ofMillis(200);
        String[] fastCheck = { "bloom-guard.rewind-check-interval=" + check.toMillis() + "ms" };
        try (RedisServer redis = RedisServer.start();
                ConfigurableApplicationContext old = GuardedApp.start(redis.port(), "rollout-lifted", TABLE,
                        "SELECT id FROM " + TABLE, fastCheck);
                ConfigurableApplicationContext upgraded = GuardedApp.start(redis.port(), "rollout-lifted", TABLE,
                        "SELECT id FROM " + TABLE + " WHERE id <= 5000", fastCheck)) {
            GuardedApp.Directory oldInstance = old.getBean(GuardedApp.Directory.class);
            RedisBloomFilter oldFilter = old.getBean(BloomFilterRegistry.class).filter("user");
            long[] onlyInOldQuery = { 5_002, 7_500, 9_998, 10_000 };
            foundWithinThenAlways(oldInstance, onlyInOldQuery, System.nanoTime(), check, 0,
                    "time the old instance blocks a row its own query returns");

            oldFilter.release(Hold.FOREIGN_SOURCE);
            foundWithinThenAlways(oldInstance, onlyInOldQuery, System.nanoTime(), check, 10,
                    "time a suspension lifted from outside lets the old instance block a row its query returns");
            assertThat(GuardedApp.rejected(upgraded.getBean(GuardedApp.Directory.class)))
                    .as("the new query's filter blocks absent keys").isGreaterThan(950);
        }
    }

    /**
     * A rolling deploy that changes the geometry and the warmup query at once. The old instance
     * (its geometry, its query) and the new one (another geometry, a query that leaves out some
     * of the old one's rows and returns some it did not, as a changed {@code WHERE} would) each
     * write to both generations, and the new one answers from the old generation until its own
     * covers every writer. Neither may block a row its own query returns, nor one created through
     * either, at any moment of the rollout; once the old instance is gone the new one blocks
     * absent keys.
     */
    @ParameterizedTest
    @EnumSource(GuardedApp.Source.class)
    void neitherInstanceBlocksItsQuerysRowsWhenGeometryAndWarmupQueryChangeTogether(GuardedApp.Source source)
            throws Exception {
        seedBothQueriesTable();
        try (RedisServer redis = RedisServer.start();
                RedisClient client = RedisClient.create("redis://127.0.0.1:" + redis.port());
                StatefulRedisConnection<String, String> admin = client.connect();
                ConfigurableApplicationContext old = startOldOfBoth(source, redis, FAST_ROLLOUT)) {
            List<Long> created = new ArrayList<>();
            try (ConfigurableApplicationContext upgraded = startNewOfBoth(source, redis, FAST_ROLLOUT)) {
                assertThat(liveKeys(admin)).as("the new configuration's generation beside the old").hasSize(2);
                createAndFindFor(Duration.ofSeconds(4), created, oldOfBoth(old), newOfBoth(upgraded));

                old.close(); // the last old instance goes: the rollout is over
                createAndFindFor(Duration.ofSeconds(4), created, newOfBoth(upgraded));
                assertThat(GuardedApp.rejectedWithin(newOfBoth(upgraded).directory(), Duration.ofSeconds(5)))
                        .as("absent keys of 1,000 the new instance blocks once the rollout is over")
                        .isGreaterThanOrEqualTo(900);
            }
        }
    }

    /**
     * While the new configuration's instance answers from the old generation, loaded from the
     * other warmup query, that generation's "absent" lets keys through: the bypasses are counted
     * as {@code reason=suspended}, as an operator reading the runbook looks for, not as
     * {@code not_ready}. (The journal's retention is long, so the new generation cannot cover
     * every writer during the test.)
     */
    @Test
    void bypassesWhileTheOtherQuerysGenerationAnswersAreCountedAsSuspended() throws Exception {
        seedBothQueriesTable();
        String[] slowCover = { "bloom-guard.rollout.heartbeat-interval=200ms", "bloom-guard.rollout.grace-period=2s",
                "bloom-guard.journal.retention=60s" };
        try (RedisServer redis = RedisServer.start();
                ConfigurableApplicationContext old = startOldOfBoth(GuardedApp.Source.SQL, redis, slowCover);
                ConfigurableApplicationContext upgraded = startNewOfBoth(GuardedApp.Source.SQL, redis, slowCover)) {
            GuardedApp.Directory directory = newOfBoth(upgraded).directory();
            for (long id = 1_000_001; id < 1_000_201; id += 2) {
                try {
                    directory.find(id);
                }
                catch (BloomGuardRejectedException ex) {
                    throw new AssertionError("absent id " + id + " blocked from the other query's generation", ex);
                }
                catch (RuntimeException notFound) {
                    // let through, and not in the table
                }
            }
            MeterRegistry meters = upgraded.getBean(MeterRegistry.class);
            assertThat(bypassed(meters, "suspended")).as("reason=suspended").isGreaterThanOrEqualTo(100);
            assertThat(bypassed(meters, "not_ready")).as("reason=not_ready").isLessThan(100);
        }
    }

    private static double bypassed(MeterRegistry meters, String reason) {
        Counter counter = meters.find("bloomguard.checks").tag("filter", "user").tag("outcome", "bypassed")
                .tag("reason", reason).counter();
        return counter == null ? 0 : counter.count();
    }

    /**
     * The same change rolled back once it was over (the old generation deleted): an instance of
     * the old configuration comes back beside the new one and answers from the new generation
     * until its own, loaded from its query, covers every writer. It must not block a row only its
     * query returns meanwhile; once the new instance is gone it blocks absent keys.
     */
    @ParameterizedTest
    @EnumSource(GuardedApp.Source.class)
    void anInstanceRolledBackToTheOldGeometryAndQueryBlocksNoneOfItsQuerysRows(GuardedApp.Source source)
            throws Exception {
        seedBothQueriesTable();
        try (RedisServer redis = RedisServer.start();
                RedisClient client = RedisClient.create("redis://127.0.0.1:" + redis.port());
                StatefulRedisConnection<String, String> admin = client.connect()) {
            List<Long> created = new ArrayList<>();
            ConfigurableApplicationContext old = startOldOfBoth(source, redis, FAST_ROLLOUT);
            try (ConfigurableApplicationContext upgraded = startNewOfBoth(source, redis, FAST_ROLLOUT)) {
                createAndFindFor(Duration.ofSeconds(2), created, oldOfBoth(old), newOfBoth(upgraded));
                old.close(); // the rollout is over
                long closed = System.nanoTime();
                while (liveKeys(admin).size() > 1) {
                    assertThat(Duration.ofNanos(System.nanoTime() - closed))
                            .as("time the unused generation's keys outlive the grace period").isLessThan(Duration.ofSeconds(8));
                    createAndFindFor(Duration.ZERO, created, newOfBoth(upgraded));
                }

                try (ConfigurableApplicationContext rolledBack = startOldOfBoth(source, redis, FAST_ROLLOUT)) {
                    createAndFindFor(Duration.ofSeconds(4), created, oldOfBoth(rolledBack), newOfBoth(upgraded));

                    upgraded.close(); // the last new instance goes: the rollback is over
                    createAndFindFor(Duration.ofSeconds(4), created, oldOfBoth(rolledBack));
                    assertThat(GuardedApp.rejectedWithin(oldOfBoth(rolledBack).directory(), Duration.ofSeconds(5)))
                            .as("absent keys of 1,000 the rolled-back instance blocks once the rollback is over")
                            .isGreaterThanOrEqualTo(900);
                }
            }
            finally {
                old.close();
            }
        }
    }

    /**
     * Geometry and warmup query change at once, with two new instances: the second starts while
     * the new generation, loaded by the first, does not yet cover the old instance's adds (a
     * longer journal retention keeps it so), finds it live from its own query, and answers from
     * the old generation. It must not block a row only the new query returns.
     */
    @ParameterizedTest
    @EnumSource(GuardedApp.Source.class)
    void aSecondNewInstanceBlocksNoneOfItsQuerysRowsWhileTheNewGenerationCoversNotYet(GuardedApp.Source source)
            throws Exception {
        seedBothQueriesTable();
        String[] slowCover = { "bloom-guard.rollout.heartbeat-interval=200ms", "bloom-guard.rollout.grace-period=2s",
                "bloom-guard.journal.retention=5s" };
        try (RedisServer redis = RedisServer.start();
                ConfigurableApplicationContext old = startOldOfBoth(source, redis, slowCover)) {
            List<Long> created = new ArrayList<>();
            try (ConfigurableApplicationContext first = startNewOfBoth(source, redis, slowCover);
                    ConfigurableApplicationContext second = startNewOfBoth(source, redis, slowCover)) {
                createAndFindFor(Duration.ofSeconds(4), created, oldOfBoth(old), newOfBoth(first), newOfBoth(second));

                old.close(); // the last old instance goes: the rollout is over
                createAndFindFor(Duration.ofSeconds(4), created, newOfBoth(first), newOfBoth(second));
                for (ConfigurableApplicationContext upgraded : List.of(first, second)) {
                    assertThat(GuardedApp.rejectedWithin(newOfBoth(upgraded).directory(), Duration.ofSeconds(8)))
                            .as("absent keys of 1,000 a new instance blocks once the rollout is over")
                            .isGreaterThanOrEqualTo(900);
                }
            }
        }
    }

    /**
     * Rows 2..4000 (even) for the geometry-and-query change: the old query leaves out those above
     * 3000, the new one those up to 1000. Rows created later are returned by both, as a row that
     * is neither deleted nor archived would be.
     */
    private static void seedBothQueriesTable() {
        RealServers.execute("DROP TABLE IF EXISTS " + TABLE, "CREATE TABLE " + TABLE + " (id BIGINT PRIMARY KEY,"
                + " in_old_query BOOLEAN NOT NULL DEFAULT TRUE, in_new_query BOOLEAN NOT NULL DEFAULT TRUE)",
                "INSERT INTO " + TABLE + " SELECT 2 * g, 2 * g <= 3000, 2 * g > 1000 FROM generate_series(1, 2000) g");
    }

    private static final List<Long> OLD_QUERY_ROWS = LongStream.rangeClosed(1, 1500).map(i -> 2 * i).boxed().toList();
    private static final List<Long> NEW_QUERY_ROWS = LongStream.rangeClosed(501, 2000).map(i -> 2 * i).boxed().toList();

    /** An instance of the old configuration of {@link #seedBothQueriesTable}'s change. */
    private static ConfigurableApplicationContext startOldOfBoth(GuardedApp.Source source, RedisServer redis,
            String... rollout) {
        return GuardedApp.start(source, redis.port(), "rollout", TABLE, "SELECT id FROM " + TABLE + " WHERE in_old_query",
                rollout);
    }

    /** An instance of the new configuration of {@link #seedBothQueriesTable}'s change: twice the expected insertions, the new query. */
    private static ConfigurableApplicationContext startNewOfBoth(GuardedApp.Source source, RedisServer redis,
            String... rollout) {
        List<String> properties = new ArrayList<>(List.of(rollout));
        properties.add("bloom-guard.filters.user.expected-insertions=200000");
        return GuardedApp.start(source, redis.port(), "rollout", TABLE, "SELECT id FROM " + TABLE + " WHERE in_new_query",
                properties.toArray(String[]::new));
    }

    private static Instance oldOfBoth(ConfigurableApplicationContext context) {
        return new Instance(context.getBean(GuardedApp.Directory.class), OLD_QUERY_ROWS);
    }

    private static Instance newOfBoth(ConfigurableApplicationContext context) {
        return new Instance(context.getBean(GuardedApp.Directory.class), NEW_QUERY_ROWS);
    }

    /** An instance in a rollout, and the rows its own warmup query returns: it must never block them. */
    private record Instance(GuardedApp.Directory directory, List<Long> queryRows) {
    }

    /**
     * For {@code duration} (at least once): creates a row through each instance, then checks
     * through each every row its own query returns and every row created, none of which may be blocked.
     */
    private static void createAndFindFor(Duration duration, List<Long> created, Instance... instances) {
        long until = System.nanoTime() + duration.toNanos();
        do {
            for (Instance instance : instances) {
                created.add(instance.directory().create());
            }
            for (Instance instance : instances) {
                assertFoundThroughEach(Stream.concat(instance.queryRows().stream(), created.stream()).toList(),
                        instance.directory());
            }
        }
        while (System.nanoTime() < until);
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

    /** The live bitmaps of filter 'user' (one per generation): keys like {@code rollout:v1:{user:m958528k7:0}}. */
    private static List<String> liveKeys(StatefulRedisConnection<String, String> admin) {
        return admin.sync().keys("rollout:v1:{user:m*}").stream().sorted().toList();
    }

    private static String onlyLiveKey(StatefulRedisConnection<String, String> admin) {
        List<String> live = liveKeys(admin);
        assertThat(live).hasSize(1);
        return live.get(0);
    }

    /**
     * Each of {@code ids} is let through within {@code check} and 2 s of {@code since} (saying
     * {@code what} otherwise), then on every one of {@code rounds} rounds half a check apart.
     */
    private static void foundWithinThenAlways(GuardedApp.Directory directory, long[] ids, long since, Duration check,
            int rounds, String what) throws InterruptedException {
        for (long id : ids) {
            GuardedApp.foundWithin(directory, id, since, check.plusSeconds(2), what);
        }
        for (int round = 0; round < rounds; round++) {
            for (long id : ids) {
                assertThat(directory.find(id)).isEqualTo(id);
            }
            Thread.sleep(check.toMillis() / 2);
        }
    }
}
