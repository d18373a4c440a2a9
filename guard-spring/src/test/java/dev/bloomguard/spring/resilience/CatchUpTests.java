package dev.bloomguard.spring.resilience;

import static dev.bloomguard.spring.resilience.RedisOutageTests.rejects;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.stream.LongStream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.RealServers;
import dev.bloomguard.testsupport.Await;
import dev.bloomguard.testsupport.RedisServerExtension;

/**
 * Rows that another service, a batch job or plain SQL inserts never pass through
 * {@code @BloomPut}: {@code warmup.catch-up-sql} (or a key source bean's catch-up) brings them in, and a filter that has neither
 * it nor a rebuild interval is named at startup.
 */
@ExtendWith(OutputCaptureExtension.class)
class CatchUpTests {

    private static final String TABLE = "caught_up_users";
    private static final String WARMUP_SQL = "SELECT id FROM " + TABLE;
    private static final String CATCH_UP_SQL = "SELECT id FROM " + TABLE + " WHERE created_at > :since";

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static int testNumber;

    @BeforeAll
    static void startServers() {
        RealServers.execute("DROP TABLE IF EXISTS " + TABLE, "CREATE TABLE " + TABLE
                + " (id BIGINT PRIMARY KEY, created_at TIMESTAMPTZ NOT NULL DEFAULT now())",
                "INSERT INTO " + TABLE + " (id) SELECT 2 * g FROM generate_series(1, 20000) g");
    }

    /** With a bean, {@link GuardedApp} turns the catch-up properties into the bean's own catch-up. */
    @ParameterizedTest
    @EnumSource(GuardedApp.Source.class)
    void aRowInsertedByPlainSqlIsNotBlockedOnceTheCatchUpQueryHasRun(GuardedApp.Source source) throws Exception {
        RealServers.execute("DELETE FROM " + TABLE + " WHERE id > 5000000");
        try (ConfigurableApplicationContext context = GuardedApp.start(source, REDIS.port(), prefix(), TABLE, WARMUP_SQL,
                "bloom-guard.filters.user.warmup.catch-up-sql=" + CATCH_UP_SQL,
                "bloom-guard.filters.user.warmup.catch-up-interval=300ms")) {
            RedisBloomFilter filter = context.getBean(BloomFilterRegistry.class).filter("user");
            GuardedApp.Directory directory = context.getBean(GuardedApp.Directory.class);
            RealServers.execute("INSERT INTO " + TABLE + " (id) VALUES (5000001), (5000003)");

            Await.until("the catch-up query", Duration.ofSeconds(10), () -> filter.check(5_000_003L) == Membership.PRESENT);

            assertThat(directory.find(5_000_001L)).isEqualTo(5_000_001L);
            assertThat(directory.find(5_000_003L)).isEqualTo(5_000_003L);
            long rejected = LongStream.iterate(1, id -> id + 2).limit(1_000).filter(id -> rejects(directory, id)).count();
            assertThat(rejected).as("absent ids rejected").isGreaterThan(950);
        }
    }

    @Test
    void aCatchUpQueryOfSeveralColumnsAddsTheWarmupsKeyColumn() throws Exception {
        try (ConfigurableApplicationContext context = GuardedApp.start(REDIS.port(), prefix(), TABLE,
                "SELECT created_at, id FROM " + TABLE,
                "bloom-guard.filters.user.warmup.key-column=id",
                "bloom-guard.filters.user.warmup.catch-up-sql=SELECT created_at, id FROM " + TABLE
                        + " WHERE created_at > :since",
                "bloom-guard.filters.user.warmup.catch-up-interval=300ms")) {
            RedisBloomFilter filter = context.getBean(BloomFilterRegistry.class).filter("user");
            GuardedApp.Directory directory = context.getBean(GuardedApp.Directory.class);
            RealServers.execute("INSERT INTO " + TABLE + " (id) VALUES (6000001)");

            Await.until("the catch-up query", Duration.ofSeconds(10), () -> filter.check(6_000_001L) == Membership.PRESENT);

            assertThat(directory.find(6_000_001L)).isEqualTo(6_000_001L);
            long rejected = LongStream.iterate(1, id -> id + 2).limit(1_000).filter(id -> rejects(directory, id)).count();
            assertThat(rejected).as("absent ids rejected").isGreaterThan(950);
        }
    }

    /**
     * The instance that loaded the filter is gone (a deploy replaced it), and its host's clock ran
     * ten minutes ahead of the database's. An instance that did not load catches up from the live
     * load's own database time, never from the loader's clock: a row inserted after the load is
     * found by its catch-up, not skipped as "before the load".
     */
    @Test
    void anInstanceThatDidNotLoadCatchesUpFromTheLoadsDatabaseTimeNotTheLoadersClock() throws Exception {
        RealServers.execute("DELETE FROM " + TABLE + " WHERE id > 5000000");
        String prefix = prefix();
        String[] catchUp = { "bloom-guard.filters.user.warmup.catch-up-sql=" + CATCH_UP_SQL,
                "bloom-guard.filters.user.warmup.catch-up-interval=300ms",
                "bloom-guard.filters.user.warmup.catch-up-overlap=200ms" };
        String meta;
        try (ConfigurableApplicationContext loader = GuardedApp.start(REDIS.port(), prefix, TABLE, WARMUP_SQL, catchUp)) {
            meta = loader.getBean(BloomFilterRegistry.class).filter("user").keys().meta();
        }
        String loadedBy = REDIS.admin().hget(meta, "loadedBy");
        long loadedAt = Long.parseLong(REDIS.admin().hget(meta, "loadedAt"));
        REDIS.admin().hset(meta, "loadedAt", Long.toString(loadedAt + Duration.ofDays(2).toMillis()));
        RealServers.execute("INSERT INTO " + TABLE + " (id) VALUES (5000005)");
        Thread.sleep(1_000); // longer ago than the catch-up's overlap when the next instance starts

        try (ConfigurableApplicationContext context = GuardedApp.start(REDIS.port(), prefix, TABLE, WARMUP_SQL, catchUp)) {
            RedisBloomFilter filter = context.getBean(BloomFilterRegistry.class).filter("user");
            GuardedApp.Directory directory = context.getBean(GuardedApp.Directory.class);
            Await.until("the catch-up query", Duration.ofSeconds(10), () -> filter.check(5_000_005L) == Membership.PRESENT);

            assertThat(REDIS.admin().hget(meta, "loadedBy")).as("the live bitmap is still the first instance's load")
                    .isEqualTo(loadedBy);

            assertThat(directory.find(5_000_005L)).isEqualTo(5_000_005L);
            long rejected = LongStream.iterate(1, id -> id + 2).limit(1_000).filter(id -> rejects(directory, id)).count();
            assertThat(rejected).as("absent ids rejected").isGreaterThan(950);
        }
    }

    @Test
    void startupNamesAFilterThatLearnsOfOtherWritersOnlyThroughBloomPut(CapturedOutput output) {
        try (ConfigurableApplicationContext context = GuardedApp.start(REDIS.port(), prefix(), TABLE, WARMUP_SQL)) {
            assertThat(output.getOut() + output.getErr()).contains("Filter 'user'")
                    .contains("bloom-guard.filters.user.warmup.catch-up-sql")
                    .contains("bloom-guard.filters.user.rebuild.interval").contains("@BloomPut");
        }
    }

    private static String prefix() {
        return "caughtup" + (++testNumber);
    }
}
