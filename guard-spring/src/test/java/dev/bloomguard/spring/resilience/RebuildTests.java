package dev.bloomguard.spring.resilience;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.bloomguard.core.LoadReport;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.RealServers;
import dev.bloomguard.spring.warmup.FilterWarmer;
import dev.bloomguard.testsupport.Await;
import dev.bloomguard.testsupport.RedisServerExtension;

/** {@code rebuild.interval}: stale filters are rebuilt from the SQL, by one instance, and drop deleted keys. */
class RebuildTests {

    private static final String TABLE = "rebuilt_users";
    private static final String CALLS = "rebuilt_warmup_calls";
    private static final String WARMUP_SQL = "SELECT id FROM counted_rebuilt_users()";

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static int testNumber;

    @BeforeAll
    static void startServers() {
        RealServers.execute("DROP SEQUENCE IF EXISTS " + CALLS, "CREATE SEQUENCE " + CALLS,
                "CREATE TABLE IF NOT EXISTS " + TABLE + " (id BIGINT PRIMARY KEY)",
                "CREATE OR REPLACE FUNCTION counted_rebuilt_users() RETURNS TABLE (id BIGINT) AS $$ "
                        + "BEGIN PERFORM nextval('" + CALLS + "'); RETURN QUERY SELECT u.id FROM " + TABLE + " u; END "
                        + "$$ LANGUAGE plpgsql VOLATILE");
    }

    @BeforeEach
    void seedUsers() {
        RealServers.execute("DELETE FROM " + TABLE,
                "INSERT INTO " + TABLE + " SELECT 2 * g FROM generate_series(1, 20000) g");
    }

    /**
     * A rebuild asked for while a load runs reads the source after it was asked for: the running
     * load may have taken its snapshot before the row the rebuild is for (as when the retry queue
     * gives up on an add Redis kept refusing, and asks for a rebuild to stand in for it).
     */
    @Test
    void aRebuildAskedForWhileALoadRunsReadsItsSourceAfterTheAsking() throws Exception {
        // The query sleeps before its rows, so the first rebuild is still running when the second is asked for.
        String slowQuery = "SELECT id FROM " + TABLE + " CROSS JOIN (SELECT pg_sleep(1.5)) AS pause";
        try (ConfigurableApplicationContext app = GuardedApp.start(REDIS.port(), "rebuilt-after-" + (++testNumber),
                TABLE, slowQuery)) {
            GuardedApp.Directory directory = app.getBean(GuardedApp.Directory.class);
            FilterWarmer warmer = app.getBean(FilterWarmer.class);
            CompletableFuture<?> first = warmer.rebuild("user");
            Thread.sleep(500); // its query has begun, and has its snapshot
            long committedWithoutAdd = 1_000_001;
            RealServers.execute("INSERT INTO " + TABLE + " VALUES (" + committedWithoutAdd + ")");

            CompletableFuture<LoadReport> second = warmer.rebuild("user");

            first.get(20, TimeUnit.SECONDS);
            assertThat(second.get(20, TimeUnit.SECONDS).keys()).isEqualTo(20_001);
            assertThat(directory.find(committedWithoutAdd)).isEqualTo(committedWithoutAdd);
            assertThat(GuardedApp.rejected(directory)).as("the same filter blocks absent ids").isGreaterThan(950);
        }
    }

    @ParameterizedTest
    @EnumSource(GuardedApp.Source.class)
    void rebuildsWhenTheLiveFilterIsOlderThanTheIntervalAndDropsDeletedKeys(GuardedApp.Source source) throws Exception {
        try (ConfigurableApplicationContext context = GuardedApp.start(source, REDIS.port(), prefix(), TABLE, WARMUP_SQL,
                "bloom-guard.filters.user.rebuild.interval=2s")) {
            RedisBloomFilter filter = context.getBean(BloomFilterRegistry.class).filter("user");
            Instant firstLoad = filter.liveSince().orElseThrow();
            List<Long> deleted = LongStream.rangeClosed(1, 500).map(i -> 2 * i).boxed().toList();
            assertThat(filter.checkAll(deleted)).containsOnly(Membership.PRESENT);
            new JdbcTemplate(RealServers.postgres().dataSource()).update("DELETE FROM " + TABLE + " WHERE id <= 1000");

            Await.until("a periodic rebuild", Duration.ofSeconds(20),
                    () -> filter.liveSince().filter(since -> since.isAfter(firstLoad)).isPresent());

            long stillPassing = filter.checkAll(deleted).stream().filter(answer -> answer == Membership.PRESENT).count();
            assertThat(stillPassing).as("deleted keys still passing (false positives only)").isLessThan(25);
            List<Long> kept = LongStream.rangeClosed(501, 20_000).map(i -> 2 * i).boxed().toList();
            for (int from = 0; from < kept.size(); from += 1000) {
                assertThat(filter.checkAll(kept.subList(from, Math.min(kept.size(), from + 1000))))
                        .containsOnly(Membership.PRESENT);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(GuardedApp.Source.class)
    void aRestartedInstanceRewarmsOnlyAStaleFilter(GuardedApp.Source source) throws Exception {
        String prefix = prefix();
        long before = warmupCalls();
        try (ConfigurableApplicationContext first = GuardedApp.start(source, REDIS.port(), prefix, TABLE, WARMUP_SQL,
                "bloom-guard.filters.user.rebuild.interval=1h")) {
            assertThat(warmupCalls() - before).isEqualTo(1);
        }
        try (ConfigurableApplicationContext fresh = GuardedApp.start(source, REDIS.port(), prefix, TABLE, WARMUP_SQL,
                "bloom-guard.filters.user.rebuild.interval=1h")) {
            assertThat(warmupCalls() - before).as("younger than the interval: not warmed again").isEqualTo(1);
        }
        Thread.sleep(1_100);
        try (ConfigurableApplicationContext stale = GuardedApp.start(source, REDIS.port(), prefix, TABLE, WARMUP_SQL,
                "bloom-guard.filters.user.rebuild.interval=1s")) {
            assertThat(warmupCalls() - before).as("older than the interval: warmed again").isEqualTo(2);
            assertThat(stale.getBean(BloomFilterRegistry.class).filter("user").isReady()).isTrue();
        }
    }

    @ParameterizedTest
    @EnumSource(GuardedApp.Source.class)
    void aRestartWithAChangedWarmupQueryReloadsEvenAFreshFilter(GuardedApp.Source source) throws Exception {
        String prefix = prefix();
        RealServers.execute("DROP TABLE IF EXISTS rebuilt_more_users", "CREATE TABLE rebuilt_more_users (id BIGINT)",
                "INSERT INTO rebuilt_more_users VALUES (1000001)");
        try (ConfigurableApplicationContext first = GuardedApp.start(source, REDIS.port(), prefix, TABLE, WARMUP_SQL)) {
            assertThat(first.getBean(BloomFilterRegistry.class).filter("user").isReady()).isTrue();
        }
        String widened = "SELECT id FROM counted_rebuilt_users() UNION ALL SELECT id FROM rebuilt_more_users";
        long before = warmupCalls();
        try (ConfigurableApplicationContext changed = GuardedApp.start(source, REDIS.port(), prefix, TABLE, widened)) {
            assertThat(warmupCalls() - before).as("the new query ran").isEqualTo(1);
            assertThat(changed.getBean(GuardedApp.Directory.class).find(1_000_001L))
                    .as("a key only the new query returns").isEqualTo(1_000_001L);
        }
    }

    /**
     * The same change with the warmup in the background (the default), and a new query that
     * takes seconds: the old filter stays live meanwhile, complete and fresh, and must not block
     * a key only the new query returns.
     */
    @ParameterizedTest
    @EnumSource(GuardedApp.Source.class)
    void whileAChangedQueryReloadsInTheBackgroundTheOldFilterBlocksNoKeyOfTheNewOne(GuardedApp.Source source) throws Exception {
        String prefix = prefix();
        RealServers.execute("DROP TABLE IF EXISTS rebuilt_late_users", "CREATE TABLE rebuilt_late_users (id BIGINT)",
                "INSERT INTO rebuilt_late_users VALUES (1000003)");
        try (ConfigurableApplicationContext first = GuardedApp.start(source, REDIS.port(), prefix, TABLE, WARMUP_SQL)) {
            assertThat(first.getBean(BloomFilterRegistry.class).filter("user").check(1_000_003L))
                    .isEqualTo(Membership.ABSENT);
        }
        String slowWidened = "SELECT id FROM counted_rebuilt_users() UNION ALL "
                + "SELECT id FROM rebuilt_late_users, pg_sleep(3) AS pause";
        try (ConfigurableApplicationContext changed = GuardedApp.start(source, REDIS.port(), prefix, TABLE, slowWidened,
                "bloom-guard.filters.user.warmup.blocking=false")) {
            RedisBloomFilter filter = changed.getBean(BloomFilterRegistry.class).filter("user");
            GuardedApp.Directory directory = changed.getBean(GuardedApp.Directory.class);
            assertThat(filter.isReady()).as("the old filter is live while the new query runs").isTrue();
            assertThat(directory.find(1_000_003L)).as("a key only the new query returns, during the reload")
                    .isEqualTo(1_000_003L);
            Await.until("the reload from the new query", Duration.ofSeconds(30), () -> filter.holds().isEmpty());
            assertThat(filter.check(1_000_003L)).isEqualTo(Membership.PRESENT);
            long absent = LongStream.iterate(1_000_005L, id -> id + 2).limit(10_000)
                    .filter(id -> filter.check(id) == Membership.ABSENT).findFirst().orElseThrow();
            assertThat(absent).as("blocking again once the new query's filter is live").isPositive();
        }
    }

    /**
     * The warmup query suddenly returns nothing (an empty restored replica, a wrong schema): the
     * scheduled rebuild is refused, the old filter stays live and blocking, the refusal is visible,
     * the next try waits for the next rebuild, and only a forced rebuild installs the small filter.
     */
    @ParameterizedTest
    @EnumSource(GuardedApp.Source.class)
    void aRebuildThatReadsFarFewerKeysThanTheLiveFilterIsRefusedUntilForced(GuardedApp.Source source) throws Exception {
        try (ConfigurableApplicationContext context = GuardedApp.start(source, REDIS.port(), prefix(), TABLE, WARMUP_SQL,
                "bloom-guard.filters.user.rebuild.interval=3s")) {
            RedisBloomFilter filter = context.getBean(BloomFilterRegistry.class).filter("user");
            FilterWarmer warmer = context.getBean(FilterWarmer.class);
            GuardedApp.Directory directory = context.getBean(GuardedApp.Directory.class);
            Instant firstLoad = filter.liveSince().orElseThrow();
            long created = directory.create();
            long before = warmupCalls();
            RealServers.execute("DELETE FROM " + TABLE);

            Await.until("a rebuild from the emptied table", Duration.ofSeconds(20),
                    () -> warmupCalls() > before && !warmer.isWarming("user"));
            long callsAfterRefusal = warmupCalls();
            Thread.sleep(1_500);
            assertThat(warmupCalls()).as("no retry before the next rebuild is due").isEqualTo(callsAfterRefusal);
            for (long id = 2; id <= 40_000; id += 2) {
                assertThat(directory.find(id)).isEqualTo(id);
            }
            assertThat(directory.find(created)).as("a key added through @BloomPut").isEqualTo(created);
            long blocked = LongStream.iterate(100_001, id -> id + 2).limit(10_000)
                    .filter(id -> filter.check(id) == Membership.ABSENT).count();
            assertThat(blocked).as("absent keys still blocked by the old filter").isGreaterThan(9_500);
            assertThat(filter.liveSince()).as("the old filter stays live").contains(firstLoad);
            assertThat(filter.holds()).isEmpty();
            assertThat(warmer.lastFailure("user").orElseThrow().reason()).contains("max-shrink");

            Await.until("the scheduled retry, if running, to end", Duration.ofSeconds(20), () -> !warmer.isWarming("user"));
            assertThat(warmer.rebuild("user", true).get(20, TimeUnit.SECONDS).keys()).isZero();
            assertThat(filter.check(2L)).as("a forced rebuild installs what the query returned").isEqualTo(Membership.ABSENT);
            assertThat(warmer.lastFailure("user")).isEmpty();
        }
    }

    /**
     * The fingerprint stored with the live bitmap is what tells a restarted instance that the
     * filter came from its own query. It is part of the stored format, pinned here: a release that
     * stored another value for the same query would make an upgrade reload every filter at once.
     */
    @Test
    void theSqlSourceStoresThePinnedFingerprintOfItsQuery() {
        try (ConfigurableApplicationContext context = GuardedApp.start(REDIS.port(), prefix(), TABLE, WARMUP_SQL)) {
            assertThat(context.getBean(BloomFilterRegistry.class).filter("user").liveSourceId())
                    .contains("sql:7a821ccbe84948d6");
        }
    }

    private static String prefix() {
        return "rebuilt" + (++testNumber);
    }

    private static long warmupCalls() {
        return new JdbcTemplate(RealServers.postgres().dataSource())
                .queryForObject("SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM " + CALLS, Long.class);
    }
}
