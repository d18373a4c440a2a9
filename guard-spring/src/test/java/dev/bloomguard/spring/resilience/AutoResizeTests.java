package dev.bloomguard.spring.resilience;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.context.ConfigurableApplicationContext;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.FilterState;
import dev.bloomguard.core.FilterStatus;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BloomGuardRejectedException;
import dev.bloomguard.spring.RealServers;
import dev.bloomguard.spring.actuate.BloomGuardHealth;
import dev.bloomguard.spring.actuate.FilterStatusCache;
import dev.bloomguard.spring.warmup.FilterWarmer;
import dev.bloomguard.testsupport.Await;
import dev.bloomguard.testsupport.RedisServerExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * {@code rebuild.auto-resize}: a filter loaded with more keys than it was sized for is rebuilt
 * under a larger geometry, decided once in Redis and adopted by every instance, through the
 * rolling-change machinery, so that no row is blocked before, during or after the switch, nor
 * after a restart with the configuration that was too small.
 */
class AutoResizeTests {

    private static final String TABLE = "resized_users";
    private static final String WARMUP = "SELECT id FROM " + TABLE;
    /** Sized for 2,000 keys; the table holds three times that. */
    private static final long CONFIGURED = 2_000;
    /** Doubled until the 6,000 loaded keys fill at most half of it. */
    private static final long RESIZED = 16_000;
    private static final String[] RESIZING = { "bloom-guard.rollout.heartbeat-interval=200ms",
            "bloom-guard.rollout.grace-period=2s", "bloom-guard.journal.retention=1s",
            "bloom-guard.status-refresh-interval=200ms",
            "bloom-guard.filters.user.expected-insertions=" + CONFIGURED,
            "bloom-guard.filters.user.rebuild.auto-resize=true" };

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static int testNumber;

    private static void seed(int rows) {
        GuardedApp.createUsers(TABLE, rows);
    }

    private static List<Long> seeded(int rows) {
        return LongStream.rangeClosed(1, rows).map(i -> 2 * i).boxed().toList();
    }

    @ParameterizedTest
    @EnumSource(GuardedApp.Source.class)
    void aFilterLoadedWithThreeTimesItsExpectedInsertionsIsRebuiltLargerAndStillFindsEveryRow(GuardedApp.Source source)
            throws Exception {
        seed(6_000);
        String prefix = "resize-one-" + (++testNumber);
        try (ConfigurableApplicationContext app = GuardedApp.start(source, REDIS.port(), prefix, TABLE, WARMUP,
                RESIZING)) {
            GuardedApp.Directory directory = app.getBean(GuardedApp.Directory.class);
            RedisBloomFilter filter = app.getBean(BloomFilterRegistry.class).filter("user");
            List<Long> rows = new ArrayList<>(seeded(6_000));

            Await.until("resized within 30 s", Duration.ofSeconds(30), Duration.ofMillis(50), () -> {
                rows.add(directory.create());
                assertNoneAbsent(filter, rows, "during the resize");
                return filter.status().resizedFrom().isPresent();
            });

            FilterStatus status = filter.status();
            assertThat(status.geometry().expectedInsertions()).isEqualTo(RESIZED);
            assertThat(status.resizedFrom()).map(FilterGeometry::expectedInsertions).contains(CONFIGURED);
            assertThat(status.overCapacity()).as("the resized filter holds its keys within its capacity").isFalse();
            rows.add(directory.create());
            assertNoneAbsent(filter, rows, "after the resize");
            for (long id : rows.subList(rows.size() - 20, rows.size())) {
                assertThat(directory.find(id)).isEqualTo(id);
            }
            assertThat(GuardedApp.rejected(directory)).as("absent ids blocked under the larger geometry")
                    .isGreaterThanOrEqualTo(900);

            FilterStatusCache statuses = app.getBean(FilterStatusCache.class);
            statuses.refreshAll();
            @SuppressWarnings("unchecked")
            Map<String, Object> details = (Map<String, Object>) new BloomGuardHealth(statuses).report().details()
                    .get("user");
            assertThat(details).containsEntry("overCapacity", false).containsEntry("expectedInsertions", RESIZED)
                    .containsEntry("resizedFrom", CONFIGURED);
            MeterRegistry meters = app.getBean(MeterRegistry.class);
            assertThat(meters.get("bloomguard.filter.expected.insertions").tag("filter", "user").gauge().value())
                    .isEqualTo(RESIZED);
            assertThat(meters.get("bloomguard.filter.resized").tag("filter", "user").gauge().value()).isEqualTo(1.0);
            assertThat(meters.get("bloomguard.filter.over.capacity").tag("filter", "user").gauge().value()).isZero();
        }
    }

    /**
     * Two instances of one configuration. The first load that finds the filter over capacity
     * decides the geometry; the second instance's load, which reads more rows (and would have
     * grown the filter further by itself), adopts that decision. Rows are created through both
     * while it happens, and every row in the source or created is found on both, at every look.
     */
    @ParameterizedTest
    @EnumSource(GuardedApp.Source.class)
    void twoInstancesResizeToTheSameGeometryWithoutBlockingARowOnEitherMeanwhile(GuardedApp.Source source)
            throws Exception {
        seed(2_000);
        String prefix = "resize-two-" + (++testNumber);
        try (ConfigurableApplicationContext first = GuardedApp.start(source, REDIS.port(), prefix, TABLE, WARMUP,
                RESIZING);
                ConfigurableApplicationContext second = GuardedApp.start(source, REDIS.port(), prefix, TABLE, WARMUP,
                        RESIZING)) {
            GuardedApp.Directory a = first.getBean(GuardedApp.Directory.class);
            GuardedApp.Directory b = second.getBean(GuardedApp.Directory.class);
            RedisBloomFilter filterA = first.getBean(BloomFilterRegistry.class).filter("user");
            RedisBloomFilter filterB = second.getBean(BloomFilterRegistry.class).filter("user");
            List<Long> rows = new ArrayList<>(seeded(2_000));
            assertThat(filterA.status().overCapacity()).as("sized right for 2,000 rows").isFalse();

            // The table triples: A's rebuild reads 6,000 rows, more than the filter was sized for.
            RealServers.execute("INSERT INTO " + TABLE + " SELECT 2 * g FROM generate_series(2001, 6000) g");
            first.getBean(FilterWarmer.class).rebuild("user").get(30, TimeUnit.SECONDS);
            rows = new ArrayList<>(seeded(6_000));
            // More rows before B's rebuild: 9,000 keys would make B grow the filter to 32,000 by itself.
            RealServers.execute("INSERT INTO " + TABLE + " SELECT 2 * g FROM generate_series(6001, 9000) g");
            second.getBean(FilterWarmer.class).rebuild("user").get(30, TimeUnit.SECONDS);
            rows = new ArrayList<>(seeded(9_000));

            long deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
            long settledAt = 0;
            while (settledAt == 0 || System.nanoTime() - settledAt < Duration.ofSeconds(2).toNanos()) {
                assertThat(System.nanoTime()).as("both resized within 40 s").isLessThan(deadline);
                rows.add(a.create());
                rows.add(b.create());
                assertNoneAbsent(filterA, rows, "on the first instance during the resize");
                assertNoneAbsent(filterB, rows, "on the second instance during the resize");
                for (long id : rows.subList(rows.size() - 2, rows.size())) {
                    assertFound(a, id);
                    assertFound(b, id);
                }
                if (settledAt == 0 && filterA.status().resizedFrom().isPresent()
                        && filterB.status().resizedFrom().isPresent()) {
                    settledAt = System.nanoTime();
                }
                Thread.sleep(50);
            }

            assertThat(filterA.status().geometry()).as("both instances on one geometry")
                    .isEqualTo(filterB.status().geometry());
            assertThat(filterA.status().geometry().expectedInsertions()).as("the first decision, not a second")
                    .isEqualTo(RESIZED);
            assertNoneAbsent(filterA, rows, "on the first instance after the resize");
            assertNoneAbsent(filterB, rows, "on the second instance after the resize");
            assertThat(GuardedApp.rejected(a)).isGreaterThanOrEqualTo(900);
            assertThat(GuardedApp.rejected(b)).isGreaterThanOrEqualTo(900);
        }
    }

    /**
     * After a resize, an instance started with the configuration that was too small comes up on
     * the resized geometry (the smaller one lacks nothing but would let far more absent keys
     * through, and would have to be loaded again); a configuration larger than the resized one wins.
     */
    @Test
    void aRestartWithTheOriginalConfigurationComesUpOnTheResizedGeometry() throws Exception {
        seed(6_000);
        String prefix = "resize-restart-" + (++testNumber);
        List<Long> rows = new ArrayList<>(seeded(6_000));
        try (ConfigurableApplicationContext app = GuardedApp.start(REDIS.port(), prefix, TABLE, WARMUP, RESIZING)) {
            RedisBloomFilter filter = app.getBean(BloomFilterRegistry.class).filter("user");
            Await.until("the resize", Duration.ofSeconds(30), () -> filter.status().resizedFrom().isPresent());
            GuardedApp.Directory directory = app.getBean(GuardedApp.Directory.class);
            for (int i = 0; i < 20; i++) {
                rows.add(directory.create());
            }
        }

        try (ConfigurableApplicationContext restarted = GuardedApp.start(REDIS.port(), prefix, TABLE, WARMUP,
                RESIZING)) {
            RedisBloomFilter filter = restarted.getBean(BloomFilterRegistry.class).filter("user");
            GuardedApp.Directory directory = restarted.getBean(GuardedApp.Directory.class);
            assertThat(filter.geometry().expectedInsertions()).as("its own generation, adopted at startup")
                    .isEqualTo(RESIZED);
            assertThat(filter.status().resizedFrom()).map(FilterGeometry::expectedInsertions).contains(CONFIGURED);
            assertNoneAbsent(filter, rows, "after the restart");
            for (long id : rows.subList(rows.size() - 20, rows.size())) {
                assertFound(directory, id);
            }
            assertThat(GuardedApp.rejectedWithin(directory, Duration.ofSeconds(5))).isGreaterThanOrEqualTo(900);
            rows.add(directory.create());
        }

        List<String> larger = new ArrayList<>(List.of(RESIZING));
        larger.add("bloom-guard.filters.user.expected-insertions=40000");
        try (ConfigurableApplicationContext reconfigured = GuardedApp.start(REDIS.port(), prefix, TABLE, WARMUP,
                larger.toArray(String[]::new))) {
            RedisBloomFilter filter = reconfigured.getBean(BloomFilterRegistry.class).filter("user");
            assertThat(filter.geometry().expectedInsertions()).as("a configuration larger than the resize wins")
                    .isEqualTo(40_000);
            assertThat(filter.status().resizedFrom()).isEmpty();
            assertNoneAbsent(filter, rows, "under the larger configuration");
            GuardedApp.Directory directory = reconfigured.getBean(GuardedApp.Directory.class);
            assertThat(GuardedApp.rejectedWithin(directory, Duration.ofSeconds(10)))
                    .as("absent ids blocked under the larger configuration").isGreaterThanOrEqualTo(900);
            assertNoneAbsent(filter, rows, "once the larger configuration blocks");
        }
    }

    /**
     * Redis loses the grown generation's bitmap (an eviction) while it answers: no instance runs
     * it as its own, so no check's not-ready path reloads it. Its checks bypass (the marker is
     * read with the bits), the configured generation answers again from the next heartbeat, and
     * the grown one is loaded again and answers; no row is blocked at any moment.
     */
    @Test
    void aGrownGenerationRedisLosesBlocksNothingAndIsLoadedAgain() throws Exception {
        seed(6_000);
        String prefix = "resize-lost-" + (++testNumber);
        try (ConfigurableApplicationContext app = GuardedApp.start(REDIS.port(), prefix, TABLE, WARMUP, RESIZING);
                RedisClient client = RedisClient.create("redis://127.0.0.1:" + REDIS.port());
                StatefulRedisConnection<String, String> admin = client.connect()) {
            GuardedApp.Directory directory = app.getBean(GuardedApp.Directory.class);
            RedisBloomFilter filter = app.getBean(BloomFilterRegistry.class).filter("user");
            Await.until("the resize", Duration.ofSeconds(30), () -> filter.status().resizedFrom().isPresent());
            String grownKey = filter.status().key();
            List<Long> rows = new ArrayList<>(seeded(6_000));
            rows.add(directory.create());

            assertThat(admin.sync().del(grownKey)).isEqualTo(1);

            Await.until("the grown generation loaded again within 30 s", Duration.ofSeconds(30), Duration.ofMillis(50), () -> {
                rows.add(directory.create());
                assertNoneAbsent(filter, rows, "while the grown generation is lost");
                return answersComplete(filter, grownKey);
            });
            assertNoneAbsent(filter, rows, "once it is loaded again");
            assertThat(filter.status().resizedFrom()).isPresent();
            assertThat(GuardedApp.rejectedWithin(directory, Duration.ofSeconds(5))).isGreaterThanOrEqualTo(900);
        }
    }

    @Test
    void withoutAutoResizeAnOverCapacityFilterKeepsItsGeometryAndSaysSo() throws Exception {
        seed(6_000);
        String prefix = "resize-off-" + (++testNumber);
        String[] notResizing = Arrays.stream(RESIZING).filter(property -> !property.contains("auto-resize"))
                .toArray(String[]::new);
        try (ConfigurableApplicationContext app = GuardedApp.start(REDIS.port(), prefix, TABLE, WARMUP, notResizing);
                RedisClient client = RedisClient.create("redis://127.0.0.1:" + REDIS.port());
                StatefulRedisConnection<String, String> admin = client.connect()) {
            RedisBloomFilter filter = app.getBean(BloomFilterRegistry.class).filter("user");
            Thread.sleep(4_000); // longer than a resize takes with these intervals (see the test above)

            FilterStatus status = filter.status();
            assertThat(status.geometry().expectedInsertions()).isEqualTo(CONFIGURED);
            assertThat(status.overCapacity()).isTrue();
            assertThat(status.resizedFrom()).isEmpty();
            assertThat(admin.sync().keys(prefix + ":v1:{user}:resize*")).as("no resize decided").isEmpty();
            assertThat(admin.sync().keys(prefix + ":v1:{user:m*}")).as("one generation only").hasSize(1);
            assertNoneAbsent(filter, seeded(6_000), "over capacity");

            FilterStatusCache statuses = app.getBean(FilterStatusCache.class);
            statuses.refreshAll();
            @SuppressWarnings("unchecked")
            Map<String, Object> details = (Map<String, Object>) new BloomGuardHealth(statuses).report().details()
                    .get("user");
            assertThat(details).containsEntry("overCapacity", true).containsEntry("expectedInsertions", CONFIGURED)
                    .doesNotContainKey("resizedFrom");
            MeterRegistry meters = app.getBean(MeterRegistry.class);
            assertThat(meters.get("bloomguard.filter.over.capacity").tag("filter", "user").gauge().value())
                    .isEqualTo(1.0);
            assertThat(meters.get("bloomguard.filter.resized").tag("filter", "user").gauge().value()).isZero();
        }
    }

    /** Whether {@code key}'s generation answers the filter's checks, complete (its ready marker set). */
    private static boolean answersComplete(RedisBloomFilter filter, String key) {
        FilterStatus status = filter.status();
        return status.key().equals(key) && status.state() == FilterState.READY;
    }

    private static void assertNoneAbsent(RedisBloomFilter filter, List<Long> rows, String when) {
        for (int from = 0; from < rows.size(); from += 1_000) {
            List<Long> chunk = rows.subList(from, Math.min(rows.size(), from + 1_000));
            List<Membership> answers = filter.checkAll(chunk);
            for (int i = 0; i < answers.size(); i++) {
                if (answers.get(i) == Membership.ABSENT) {
                    throw new AssertionError("row " + chunk.get(i) + " exists and was answered absent " + when);
                }
            }
        }
    }

    private static void assertFound(GuardedApp.Directory directory, long id) {
        try {
            directory.find(id);
        }
        catch (BloomGuardRejectedException ex) {
            throw new AssertionError("row " + id + " exists and was blocked", ex);
        }
    }
}
