package dev.bloomguard.core.upkeep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.redis.BitmapStoreException;
import dev.bloomguard.core.redis.LettuceBitmapStore;
import dev.bloomguard.core.redis.LettuceClients;
import dev.bloomguard.embedded.RedisServer;
import dev.bloomguard.testsupport.AbsentKeys;
import dev.bloomguard.testsupport.Await;

/**
 * The upkeep a plain-Java user of the core gets, with no Spring: the same jobs the starter runs,
 * from the same class. Each test is a day the promise needs a job for.
 */
class FilterUpkeepTests {

    private static final FilterGeometry GEOMETRY = FilterGeometry.of(10_000, 0.01);

    /**
     * Redis restarts from a snapshot older than this instance's last adds, and this instance adds
     * nothing afterwards: only the scheduled look at Redis's add counts can notice, and until it
     * does the lost keys' clear bits under a set marker block real rows.
     */
    @Test
    void keysWhoseAddsARewindLostAreLetThroughWithinTheRewindCheckIntervalWithoutAnyAdd() {
        try (RedisServer rewinding = RedisServer.start()) {
            LettuceClients client = LettuceClients.standalone(rewinding.port());
            try {
                RedisBloomFilter users = RedisBloomFilter.builder("upkeep-rewind", GEOMETRY,
                        LettuceBitmapStore.create(client, Duration.ofSeconds(10))).checkTimeout(Duration.ofSeconds(2))
                        .build();
                users.load(LongStream.rangeClosed(1, 1_000).boxed());
                client.commands().save();
                List<Object> afterSnapshot = absentKeys(users, 50);
                users.addAll(afterSnapshot);
                try (FilterUpkeep upkeep = FilterUpkeep.of(users).rewindCheckInterval(Duration.ofMillis(500)).start()) {
                    rewinding.restart(); // from the snapshot: the 50 adds are gone; nobody adds again

                    Await.until("the upkeep noticed the rewind and made the filter not ready", Duration.ofSeconds(10),
                            () -> users.isComplete().equals(java.util.Optional.of(false)));
                    assertThat(users.checkAll(afterSnapshot)).doesNotContain(Membership.ABSENT);

                    users.load(Stream.concat(LongStream.rangeClosed(1, 1_000).boxed(), afterSnapshot.stream()));
                    assertThat(users.checkAll(afterSnapshot)).containsOnly(Membership.PRESENT);
                    assertThat(blocked(users)).as("absent keys blocked once loaded again").isGreaterThan(950);
                }
                users.close();
            }
            finally {
                client.close();
            }
        }
    }

    /**
     * A filter in a rolling change bypasses until its first heartbeat has told the other
     * instances which generations it reads: the upkeep's heartbeat is what lets it block at all.
     */
    @Test
    void aFilterInARollingChangeBlocksOnceTheUpkeepsHeartbeatRan() {
        try (RedisServer redis = RedisServer.start()) {
            LettuceClients client = LettuceClients.standalone(redis.port());
            try {
                RedisBloomFilter users = RedisBloomFilter.builder("upkeep-heartbeat", GEOMETRY,
                        LettuceBitmapStore.create(client, Duration.ofSeconds(10))).checkTimeout(Duration.ofSeconds(2))
                        .rollout(Duration.ofMillis(200), Duration.ofSeconds(2)).build();
                users.load(LongStream.rangeClosed(1, 1_000).boxed());
                assertThat(blocked(users)).as("loaded, but no heartbeat: nothing blocked").isZero();

                try (FilterUpkeep upkeep = FilterUpkeep.of(users).start()) {
                    // A load that began before the instance's first heartbeat does not cover its writers.
                    Await.until("the upkeep's heartbeat, then a load", Duration.ofSeconds(10), Duration.ofMillis(300),
                            () -> {
                                users.load(LongStream.rangeClosed(1, 1_000).boxed());
                                return blocked(users) > 950;
                            });
                    assertThat(users.checkAll(LongStream.rangeClosed(1, 1_000).boxed().toList()))
                            .containsOnly(Membership.PRESENT);
                }
                users.close();
            }
            finally {
                client.close();
            }
        }
    }

    /**
     * Rows written behind the guard's back (another service, a batch job, plain SQL) are blocked
     * until something adds them: without Spring, the core's upkeep runs the caller's catch-up, from
     * the source time the live load recorded, and one instance of the fleet runs each interval's.
     */
    @Test
    void aCatchUpAddsRowsWrittenBehindTheGuardsBackOnceAnIntervalForTheWholeFleet() {
        try (RedisServer redis = RedisServer.start()) {
            LettuceClients client = LettuceClients.standalone(redis.port());
            try {
                Table table = new Table();
                LongStream.rangeClosed(1, 1_000).forEach(table::insert);
                RedisBloomFilter first = RedisBloomFilter.builder("upkeep-catch-up", GEOMETRY,
                        LettuceBitmapStore.create(client, Duration.ofSeconds(10))).instanceId("first").build();
                RedisBloomFilter second = RedisBloomFilter.builder("upkeep-catch-up", GEOMETRY,
                        LettuceBitmapStore.create(client, Duration.ofSeconds(10))).instanceId("second").build();
                try (RedisBloomFilter.PendingLoad load = first.beginLoad()) {
                    Instant sourceTime = table.now();
                    load.load(table.keys().iterator(), "table", sourceTime, false);
                }
                List<Object> behindTheGuard = absentKeys(first, 20);
                behindTheGuard.forEach(table::insert);
                assertThat(first.checkAll(behindTheGuard)).as("rows written behind the guard's back, before a catch-up")
                        .containsOnly(Membership.ABSENT);

                Duration interval = Duration.ofMillis(300);
                try (FilterUpkeep one = FilterUpkeep.of(first).catchUp(table.catchUp(interval)).start();
                        FilterUpkeep other = FilterUpkeep.of(second).catchUp(table.catchUp(interval)).start()) {
                    Await.until("the catch-up added the rows", Duration.ofSeconds(10),
                            () -> !first.checkAll(behindTheGuard).contains(Membership.ABSENT)
                                    && !second.checkAll(behindTheGuard).contains(Membership.ABSENT));
                    int runsBefore = table.runs.get();
                    Await.sleep(interval.multipliedBy(10).toMillis());
                    // Each instance runs its catch-up every interval; a turn taken in Redis for one
                    // interval leaves each interval's to one of them: about 10, where both would run 20.
                    assertThat(table.runs.get() - runsBefore).as("catch-up runs of two instances in 10 intervals")
                            .isBetween(3, 12);
                }
                assertThat(first.checkAll(behindTheGuard)).containsOnly(Membership.PRESENT);
                assertThat(blocked(first)).as("absent keys still blocked").isGreaterThan(950);
                assertThat(table.sinceUnknown.get()).as("runs that found no source time").isZero();
                first.close();
                second.close();
            }
            finally {
                client.close();
            }
        }
    }

    /**
     * A catch-up query stuck on a database lock while Redis restarts from an older snapshot: the
     * rewind check must still run every interval, or the keys whose adds Redis lost stay blocked
     * for as long as the query hangs. Catch-up queries have a thread of their own.
     */
    @Test
    void aCatchUpStuckInItsQueryDoesNotHoldUpTheRewindCheck() throws InterruptedException {
        try (RedisServer rewinding = RedisServer.start()) {
            LettuceClients client = LettuceClients.standalone(rewinding.port());
            CountDownLatch stuck = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            try {
                RedisBloomFilter users = RedisBloomFilter.builder("upkeep-stuck-catch-up", GEOMETRY,
                        LettuceBitmapStore.create(client, Duration.ofSeconds(10))).checkTimeout(Duration.ofSeconds(2))
                        .build();
                try (RedisBloomFilter.PendingLoad load = users.beginLoad()) {
                    load.load(LongStream.rangeClosed(1, 1_000).boxed().map(Object.class::cast).iterator(), "table",
                            Instant.ofEpochMilli(1_000), false);
                }
                client.commands().save();
                List<Object> afterSnapshot = absentKeys(users, 50);
                users.addAll(afterSnapshot);
                CatchUp hanging = new CatchUp() {
                    @Override
                    public Duration interval() {
                        return Duration.ofMillis(100);
                    }

                    @Override
                    public String sourceId() {
                        return "table";
                    }

                    @Override
                    public Instant addSince(RedisBloomFilter filter, Instant since) {
                        stuck.countDown();
                        Await.latch(release, Duration.ofSeconds(60)); // a query waiting on a lock
                        return since;
                    }
                };
                try (FilterUpkeep upkeep = FilterUpkeep.of(users).rewindCheckInterval(Duration.ofMillis(500))
                        .catchUp(hanging).start()) {
                    Await.latch(stuck, Duration.ofSeconds(10));
                    rewinding.restart(); // from the snapshot: the 50 adds are gone; nobody adds again

                    Await.until("the rewind check ran while the catch-up query hung", Duration.ofSeconds(10),
                            () -> users.isComplete().equals(java.util.Optional.of(false)));
                    assertThat(users.checkAll(afterSnapshot)).doesNotContain(Membership.ABSENT);
                }
                finally {
                    release.countDown();
                }
                users.close();
            }
            finally {
                client.close();
            }
        }
    }

    /**
     * Two filters, and one's catch-up query hangs on a database lock (the orders table is being
     * migrated) while another service writes users: the users' catch-up must still run every
     * interval, or those rows stay blocked for as long as the other filter's query hangs.
     */
    @Test
    void aCatchUpStuckInOneFiltersQueryDoesNotHoldUpAnotherFiltersCatchUp() {
        try (RedisServer redis = RedisServer.start()) {
            LettuceClients client = LettuceClients.standalone(redis.port());
            CountDownLatch stuck = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            try {
                RedisBloomFilter orders = RedisBloomFilter.builder("upkeep-stuck-orders", GEOMETRY,
                        LettuceBitmapStore.create(client, Duration.ofSeconds(10))).build();
                try (RedisBloomFilter.PendingLoad load = orders.beginLoad()) {
                    load.load(LongStream.rangeClosed(1, 100).boxed().map(Object.class::cast).iterator(), "orders",
                            Instant.ofEpochMilli(1_000), false);
                }
                CatchUp hanging = new CatchUp() {
                    @Override
                    public Duration interval() {
                        return Duration.ofMillis(100);
                    }

                    @Override
                    public String sourceId() {
                        return "orders";
                    }

                    @Override
                    public Instant addSince(RedisBloomFilter filter, Instant since) {
                        stuck.countDown();
                        Await.latch(release, Duration.ofSeconds(60)); // a query waiting on a lock
                        return since;
                    }
                };
                Table table = new Table();
                LongStream.rangeClosed(1, 1_000).forEach(table::insert);
                RedisBloomFilter users = RedisBloomFilter.builder("upkeep-catch-up-beside-a-stuck-one", GEOMETRY,
                        LettuceBitmapStore.create(client, Duration.ofSeconds(10))).build();
                try (RedisBloomFilter.PendingLoad load = users.beginLoad()) {
                    load.load(table.keys().iterator(), "table", table.now(), false);
                }
                List<Object> behindTheGuard = absentKeys(users, 20);
                behindTheGuard.forEach(table::insert);
                try (FilterUpkeep stuckOne = FilterUpkeep.of(orders).catchUp(hanging).start()) {
                    Await.latch(stuck, Duration.ofSeconds(10));
                    try (FilterUpkeep other = FilterUpkeep.of(users).catchUp(table.catchUp(Duration.ofMillis(200)))
                            .start()) {
                        Await.until("the users' catch-up ran while the orders' query hung", Duration.ofSeconds(10),
                                () -> !users.checkAll(behindTheGuard).contains(Membership.ABSENT));
                    }
                }
                finally {
                    release.countDown();
                }
                assertThat(users.checkAll(behindTheGuard)).containsOnly(Membership.PRESENT);
                assertThat(blocked(users)).as("absent keys still blocked").isGreaterThan(950);
                orders.close();
                users.close();
            }
            finally {
                client.close();
            }
        }
    }

    /** A live bitmap that does not say when its load read the source: the catch-up says so, and adds nothing. */
    @Test
    void aCatchUpOfABitmapLoadedWithoutASourceTimeAsksTheCallerToLoadAgain() {
        try (RedisServer redis = RedisServer.start()) {
            LettuceClients client = LettuceClients.standalone(redis.port());
            try {
                Table table = new Table();
                RedisBloomFilter users = RedisBloomFilter.builder("upkeep-catch-up-unknown", GEOMETRY,
                        LettuceBitmapStore.create(client, Duration.ofSeconds(10))).build();
                users.load(LongStream.rangeClosed(1, 1_000).boxed());
                try (FilterUpkeep upkeep = FilterUpkeep.of(users).catchUp(table.catchUp(Duration.ofMillis(200))).start()) {
                    Await.until("the catch-up found no source time", Duration.ofSeconds(10), () -> table.sinceUnknown.get() > 0);
                }
                assertThat(table.runs.get()).as("catch-up queries run").isZero();
                users.close();
            }
            finally {
                client.close();
            }
        }
    }

    /** A table with its own clock: the rows and when each was written. */
    private static final class Table {

        private final Map<Object, Instant> rows = new ConcurrentHashMap<>();
        private final AtomicLong clock = new AtomicLong(1_000_000);
        final AtomicInteger runs = new AtomicInteger();
        final AtomicInteger sinceUnknown = new AtomicInteger();

        Instant now() {
            return Instant.ofEpochMilli(clock.incrementAndGet());
        }

        void insert(Object key) {
            rows.put(key, now());
        }

        Stream<Object> keys() {
            return rows.keySet().stream();
        }

        CatchUp catchUp(Duration interval) {
            return new CatchUp() {
                @Override
                public Duration interval() {
                    return interval;
                }

                @Override
                public String sourceId() {
                    return "table";
                }

                @Override
                public Instant addSince(RedisBloomFilter filter, Instant since) {
                    runs.incrementAndGet();
                    Instant started = now();
                    filter.addAll(rows.entrySet().stream().filter(row -> !row.getValue().isBefore(since))
                            .map(Map.Entry::getKey).toList());
                    return started;
                }

                @Override
                public void sinceUnknown(RedisBloomFilter filter) {
                    sinceUnknown.incrementAndGet();
                }
            };
        }
    }


    @Test
    void badSettingsNameWhatWasWrong() {
        assertThatIllegalArgumentException().isThrownBy(() -> FilterUpkeep.of(null))
                .withMessageContaining("filter");
        try (RedisServer redis = RedisServer.start()) {
            LettuceClients client = LettuceClients.standalone(redis.port());
            try {
                RedisBloomFilter users = RedisBloomFilter.builder("upkeep-settings", GEOMETRY,
                        LettuceBitmapStore.create(client, Duration.ofSeconds(10))).build();
                assertThatIllegalArgumentException()
                        .isThrownBy(() -> FilterUpkeep.of(users).rewindCheckInterval(Duration.ZERO))
                        .withMessageContaining("rewind-check-interval of filter 'upkeep-settings'");
                assertThat(FilterUpkeep.journalPeriod(Duration.ofMinutes(10))).isEqualTo(Duration.ofMinutes(1));
                assertThat(FilterUpkeep.journalPeriod(Duration.ofMillis(500))).isEqualTo(Duration.ofSeconds(1));
                users.close();
            }
            finally {
                client.close();
            }
        }
    }

    private static long blocked(RedisBloomFilter filter) {
        try {
            List<Object> never = IntStream.range(0, 1_000).mapToObj(i -> (Object) ("never-" + i)).toList();
            return filter.checkAll(never).stream().filter(Membership::isAbsent).count();
        }
        catch (BitmapStoreException ex) {
            return 0;
        }
    }

    private static List<Object> absentKeys(RedisBloomFilter filter, int count) {
        List<Object> candidates = LongStream.range(0, 1_000).mapToObj(i -> (Object) ("absent-" + i)).toList();
        List<Membership> answers = filter.checkAll(candidates);
        return AbsentKeys.first(count, IntStream.range(0, candidates.size()).boxed(),
                i -> answers.get(i) == Membership.ABSENT).stream().map(candidates::get).toList();
    }
}
