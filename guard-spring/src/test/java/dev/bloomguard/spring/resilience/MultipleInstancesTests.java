package dev.bloomguard.spring.resilience;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
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
import dev.bloomguard.spring.BloomGuardRejectedException;
import dev.bloomguard.spring.BootIndependent;
import dev.bloomguard.spring.RealServers;
import dev.bloomguard.spring.warmup.FilterWarmer;
import dev.bloomguard.testsupport.Await;
import dev.bloomguard.testsupport.RedisServerExtension;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Several application instances on one Redis and one PostgreSQL: one warms, the others wait;
 * rebuilds swap under concurrent adds from every instance without losing a key.
 */
class MultipleInstancesTests {

    private static final String TABLE = "fleet_users";
    private static final String CALLS = "fleet_warmup_calls";
    private static final String CATCH_UP_CALLS = "fleet_catch_up_calls";
    /** Counts its own executions in a sequence (sequences ignore the warmup's rollback). */
    private static final String WARMUP_SQL = "SELECT id FROM counted_fleet_users()";

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static int testNumber;

    @BeforeAll
    static void startServers() {
        RealServers.execute("DROP TABLE IF EXISTS " + TABLE,
                "CREATE TABLE " + TABLE + " (id BIGINT PRIMARY KEY)",
                "INSERT INTO " + TABLE + " SELECT 2 * g FROM generate_series(1, 50000) g",
                "DROP SEQUENCE IF EXISTS " + CALLS, "CREATE SEQUENCE " + CALLS,
                "CREATE OR REPLACE FUNCTION counted_fleet_users() RETURNS TABLE (id BIGINT) AS $$ "
                        + "BEGIN PERFORM nextval('" + CALLS + "'); RETURN QUERY SELECT u.id FROM " + TABLE + " u; END "
                        + "$$ LANGUAGE plpgsql VOLATILE",
                "DROP SEQUENCE IF EXISTS " + CATCH_UP_CALLS, "CREATE SEQUENCE " + CATCH_UP_CALLS,
                "CREATE OR REPLACE FUNCTION counted_fleet_catch_up(since TIMESTAMPTZ) RETURNS TABLE (id BIGINT) AS $$ "
                        + "BEGIN PERFORM nextval('" + CATCH_UP_CALLS + "'); RETURN QUERY SELECT u.id FROM " + TABLE
                        + " u WHERE u.id > 100000; END $$ LANGUAGE plpgsql VOLATILE");
    }

    @BeforeEach
    void onlySeededUsers() {
        RealServers.execute("DELETE FROM " + TABLE + " WHERE id > 100000");
    }

    @ParameterizedTest
    @EnumSource(GuardedApp.Source.class)
    void twoInstancesStartingTogetherRunTheWarmupQueryOnce(GuardedApp.Source source) throws Exception {
        String prefix = prefix();
        long before = warmupCalls();
        ExecutorService starter = Executors.newFixedThreadPool(2);
        try {
            Future<ConfigurableApplicationContext> first = starter.submit(() -> GuardedApp.start(source, REDIS.port(), prefix, TABLE, WARMUP_SQL));
            Future<ConfigurableApplicationContext> second = starter.submit(() -> GuardedApp.start(source, REDIS.port(), prefix, TABLE, WARMUP_SQL));
            try (ConfigurableApplicationContext a = first.get(60, TimeUnit.SECONDS);
                    ConfigurableApplicationContext b = second.get(60, TimeUnit.SECONDS)) {
                assertThat(warmupCalls() - before).as("warmup queries run").isEqualTo(1);
                for (ConfigurableApplicationContext context : List.of(a, b)) {
                    RedisBloomFilter filter = context.getBean(BloomFilterRegistry.class).filter("user");
                    assertThat(filter.isReady()).isTrue();
                    assertThat(filter.check(100_000L)).isEqualTo(Membership.PRESENT);
                }
                try (ConfigurableApplicationContext restarted = GuardedApp.start(source, REDIS.port(), prefix, TABLE, WARMUP_SQL)) {
                    assertThat(warmupCalls() - before).as("a restarted instance finds the filter live").isEqualTo(1);
                    assertThat(restarted.getBean(BloomFilterRegistry.class).filter("user").isReady()).isTrue();
                }
            }
        }
        finally {
            starter.shutdownNow();
        }
    }

    /**
     * Rows written outside {@code @BloomPut} need one catch-up query per interval for the whole
     * fleet, not one per instance (and as many journal entries per row): the instances take turns.
     */
    @Test
    void oneInstanceOfTheFleetRunsEachCatchUpQuery() throws Exception {
        String prefix = prefix();
        String[] catchUp = { "bloom-guard.filters.user.warmup.catch-up-sql=SELECT id FROM counted_fleet_catch_up(:since)",
                "bloom-guard.filters.user.warmup.catch-up-interval=300ms" };
        try (ConfigurableApplicationContext a = GuardedApp.start(REDIS.port(), prefix, TABLE, WARMUP_SQL, catchUp);
                ConfigurableApplicationContext b = GuardedApp.start(REDIS.port(), prefix, TABLE, WARMUP_SQL, catchUp)) {
            RealServers.execute("INSERT INTO " + TABLE + " (id) VALUES (100001)");
            for (ConfigurableApplicationContext instance : List.of(a, b)) {
                RedisBloomFilter filter = instance.getBean(BloomFilterRegistry.class).filter("user");
                Await.until("the row caught up", Duration.ofSeconds(10), () -> filter.check(100_001L) == Membership.PRESENT);
            }
            long before = catchUpCalls();
            Thread.sleep(3_000);
            long runs = catchUpCalls() - before;

            // One turn per 300 ms for the fleet: 10 in 3 s, where each of two instances would run its own 10.
            assertThat(runs).as("catch-up queries run by two instances in 3 s").isBetween(3L, 12L);
            GuardedApp.Directory directory = b.getBean(GuardedApp.Directory.class);
            assertThat(directory.find(100_001L)).isEqualTo(100_001L);
            long rejected = LongStream.iterate(100_003, id -> id + 2).limit(1_000)
                    .filter(id -> RedisOutageTests.rejects(directory, id)).count();
            assertThat(rejected).as("absent ids rejected").isGreaterThan(950);
        }
    }

    @ParameterizedTest
    @EnumSource(GuardedApp.Source.class)
    void rebuildsUnderConcurrentAddsFromEveryInstanceLoseNoKey(GuardedApp.Source source) throws Exception {
        String prefix = prefix();
        // What is asserted is that no key is lost across swaps, not timing: with GuardedApp's 50 ms
        // timeout, six writers on a busy 2-core machine can open the circuit and fail a rebuild's lock.
        try (ConfigurableApplicationContext a = GuardedApp.start(source, REDIS.port(), prefix, TABLE, WARMUP_SQL,
                "bloom-guard.redis-timeout=2s");
                ConfigurableApplicationContext b = GuardedApp.start(source, REDIS.port(), prefix, TABLE, WARMUP_SQL,
                        "bloom-guard.redis-timeout=2s")) {
            List<GuardedApp.Directory> directories = List.of(a.getBean(GuardedApp.Directory.class),
                    b.getBean(GuardedApp.Directory.class));
            Queue<Long> added = new ConcurrentLinkedQueue<>();
            Queue<String> falseNegatives = new ConcurrentLinkedQueue<>();
            Queue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
            AtomicBoolean running = new AtomicBoolean(true);
            List<Thread> writers = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                GuardedApp.Directory directory = directories.get(i % 2);
                GuardedApp.Directory other = directories.get((i + 1) % 2);
                Thread writer = new Thread(() -> {
                    try {
                        while (running.get()) {
                            long id = directory.create();
                            added.add(id);
                            try {
                                other.find(id);
                                directory.find(id);
                            }
                            catch (BloomGuardRejectedException ex) {
                                falseNegatives.add("added key " + id + " blocked right after its add");
                            }
                        }
                    }
                    catch (Throwable ex) {
                        unexpected.add(ex);
                    }
                });
                writer.start();
                writers.add(writer);
            }
            FilterWarmer warmer = a.getBean(FilterWarmer.class);
            for (int i = 0; i < 5; i++) {
                LoadReport report = warmer.rebuild("user").get(60, TimeUnit.SECONDS);
                assertThat(report.keys()).isGreaterThanOrEqualTo(50_000);
            }
            LoadReport fromOther = b.getBean(FilterWarmer.class).rebuild("user").get(60, TimeUnit.SECONDS);
            running.set(false);
            for (Thread writer : writers) {
                writer.join(10_000);
            }
            assertThat(fromOther.replayedAdds()).as("adds replayed by the last swap").isPositive();
            assertThat(falseNegatives).isEmpty();
            RedisBloomFilter filter = a.getBean(BloomFilterRegistry.class).filter("user");
            List<Long> everyKey = new ArrayList<>(added);
            everyKey.addAll(new JdbcTemplate(RealServers.postgres().dataSource())
                    .queryForList("SELECT id FROM " + TABLE, Long.class));
            for (int from = 0; from < everyKey.size(); from += 1000) {
                assertThat(filter.checkAll(everyKey.subList(from, Math.min(everyKey.size(), from + 1000))))
                        .as("keys %s..", from).containsOnly(Membership.PRESENT);
            }
            assertThat(added.size()).as("adds made during the rebuilds").isGreaterThan(100);
            assertThat(unexpected).as("exceptions that ended a writer").isEmpty();
        }
    }

    @BootIndependent
    @ParameterizedTest
    @EnumSource(GuardedApp.Source.class)
    void checksAndAddsDuringSwapsSeeNoFalseNegative(GuardedApp.Source source) throws Exception {
        String prefix = prefix();
        try (ConfigurableApplicationContext context = GuardedApp.start(source, REDIS.port(), prefix, TABLE, WARMUP_SQL)) {
            GuardedApp.Directory directory = context.getBean(GuardedApp.Directory.class);
            List<Long> present = LongStream.rangeClosed(1, 50_000).map(i -> 2 * i).boxed().toList();
            Queue<String> falseNegatives = new ConcurrentLinkedQueue<>();
            Queue<Long> added = new ConcurrentLinkedQueue<>();
            Queue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicLong checks = new AtomicLong();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                boolean adder = i % 2 == 0;
                int seed = i;
                Thread thread = new Thread(() -> {
                    Random random = new Random(seed);
                    try {
                        while (running.get()) {
                            long id = adder ? directory.create() : present.get(random.nextInt(present.size()));
                            if (adder) {
                                added.add(id);
                            }
                            try {
                                directory.find(id);
                                if (adder && !added.isEmpty()) {
                                    directory.find(added.peek());
                                }
                            }
                            catch (BloomGuardRejectedException ex) {
                                falseNegatives.add((adder ? "added " : "present ") + id);
                            }
                            checks.incrementAndGet();
                        }
                    }
                    catch (Throwable ex) {
                        unexpected.add(ex);
                    }
                });
                thread.start();
                threads.add(thread);
            }
            FilterWarmer warmer = context.getBean(FilterWarmer.class);
            long deadline = System.nanoTime() + Duration.ofSeconds(8).toNanos();
            int swaps = 0;
            while (System.nanoTime() < deadline) {
                warmer.rebuild("user").get(30, TimeUnit.SECONDS);
                swaps++;
            }
            running.set(false);
            for (Thread thread : threads) {
                thread.join(10_000);
            }
            assertThat(swaps).isGreaterThan(3);
            assertThat(checks.get()).isGreaterThan(1_000);
            assertThat(falseNegatives).as("false negatives during %s swaps and %s checks", swaps, checks.get()).isEmpty();
            RedisBloomFilter filter = context.getBean(BloomFilterRegistry.class).filter("user");
            List<Long> everyAdded = new ArrayList<>(added);
            for (int from = 0; from < everyAdded.size(); from += 1000) {
                assertThat(filter.checkAll(everyAdded.subList(from, Math.min(everyAdded.size(), from + 1000))))
                        .containsOnly(Membership.PRESENT);
            }
            assertThat(unexpected).as("exceptions that ended a checking or adding thread").isEmpty();
        }
    }

    @Test
    void withMirrorsAKeyAddedOnOneInstancePassesOnTheOtherAtOnceAThousandTimesInARow() throws Exception {
        String prefix = prefix();
        String[] mirror = { "bloom-guard.filters.user.local-mirror.enabled=true",
                "bloom-guard.filters.user.local-mirror.max-memory=4MB" };
        try (ConfigurableApplicationContext a = GuardedApp.start(REDIS.port(), prefix, TABLE, WARMUP_SQL, mirror);
                ConfigurableApplicationContext b = GuardedApp.start(REDIS.port(), prefix, TABLE, WARMUP_SQL, mirror)) {
            GuardedApp.Directory onA = a.getBean(GuardedApp.Directory.class);
            GuardedApp.Directory onB = b.getBean(GuardedApp.Directory.class);
            for (long id = 2; id <= 20_000; id += 2) {
                onB.find(id);
            }
            for (int i = 0; i < 1_000; i++) {
                long id = onA.create();
                assertThat(onB.find(id)).as("added on a, checked on b, round %s", i).isEqualTo(id);
            }
            MeterRegistry meters = b.getBean(MeterRegistry.class);
            assertThat(meters.get("bloomguard.mirror.lookups").tag("filter", "user").tag("result", "hit")
                    .functionCounter().count()).as("checks answered from b's memory").isPositive();
            assertThat(meters.get("bloomguard.mirror.memory").tag("filter", "user").gauge().value())
                    .isPositive().isLessThanOrEqualTo(4 * 1024 * 1024);
        }
    }

    /**
     * A rolling deploy that turns on a mirror with {@code trust-absent}: the instances still on
     * the old configuration have no mirror, and the users they create must soon pass the new
     * instance, which otherwise blocks them from memory until its pages are read again (here
     * never: {@code refresh-after} 10 minutes). Only the moment that pub/sub takes is allowed.
     */
    @Test
    void aTrustingMirrorHearsTheAddsOfAnInstanceWithoutAMirror() throws Exception {
        String prefix = prefix();
        try (ConfigurableApplicationContext old = GuardedApp.start(REDIS.port(), prefix, TABLE, WARMUP_SQL);
                ConfigurableApplicationContext trusting = GuardedApp.start(REDIS.port(), prefix, TABLE, WARMUP_SQL,
                        "bloom-guard.filters.user.local-mirror.enabled=true",
                        "bloom-guard.filters.user.local-mirror.trust-absent=true",
                        "bloom-guard.filters.user.local-mirror.refresh-after=10m")) {
            GuardedApp.Directory onOld = old.getBean(GuardedApp.Directory.class);
            GuardedApp.Directory onTrusting = trusting.getBean(GuardedApp.Directory.class);
            RedisBloomFilter mirrored = trusting.getBean(BloomFilterRegistry.class).filter("user");
            Await.until("the trusting mirror hears and holds pages", Duration.ofSeconds(20), () -> {
                GuardedApp.rejected(onTrusting);
                return mirrored.mirrorStats().orElseThrow().hearing() && mirrored.mirrorStats().orElseThrow().pages() > 0;
            });
            assertThat(GuardedApp.rejected(onTrusting)).as("absent ids of 1,000 blocked").isGreaterThan(950);
            MeterRegistry meters = trusting.getBean(MeterRegistry.class);
            assertThat(meters.get("bloomguard.mirror.hearing").tag("filter", "user").gauge().value())
                    .as("the trusting mirror hears").isEqualTo(1.0);
            assertThat(old.getBean(MeterRegistry.class).find("bloomguard.mirror.hearing")
                    .gauge()).as("no mirror, no gauge").isNull();

            for (int i = 0; i < 200; i++) {
                long id = onOld.create();
                GuardedApp.foundWithin(onTrusting, id, System.nanoTime(), Duration.ofSeconds(2),
                        "created on the instance without a mirror, blocked by the trusting one");
            }
            assertThat(GuardedApp.rejected(onTrusting)).as("absent ids of 1,000 still blocked").isGreaterThan(950);
        }
    }

    private static String prefix() {
        return "fleet" + (++testNumber);
    }

    private static long catchUpCalls() {
        return new JdbcTemplate(RealServers.postgres().dataSource())
                .queryForObject("SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM " + CATCH_UP_CALLS, Long.class);
    }

    private static long warmupCalls() {
        return new JdbcTemplate(RealServers.postgres().dataSource())
                .queryForObject("SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM " + CALLS, Long.class);
    }
}
