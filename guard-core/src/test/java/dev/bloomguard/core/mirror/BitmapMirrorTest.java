package dev.bloomguard.core.mirror;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.stream.LongStream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.RedisBloomFilter;
import dev.bloomguard.core.redis.LettuceBitmapStore;
import dev.bloomguard.core.redis.LettuceClients;
import dev.bloomguard.embedded.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * The local mirror against a real Redis: present keys answered from memory, clear bits always
 * confirmed, other instances' adds and swaps followed, memory kept within budget.
 */
class BitmapMirrorTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private static RedisServer redis;
    private static LettuceClients clientA;
    private static LettuceClients clientB;
    private static LettuceBitmapStore storeA;
    private static LettuceBitmapStore storeB;
    private static RedisClient admin;
    private static StatefulRedisConnection<String, String> adminConnection;
    private static int filterNumber;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
        clientA = connect();
        clientB = connect();
        storeA = LettuceBitmapStore.create(clientA, Duration.ofSeconds(10));
        storeB = LettuceBitmapStore.create(clientB, Duration.ofSeconds(10));
        admin = RedisClient.create("redis://127.0.0.1:" + redis.port());
        adminConnection = admin.connect();
    }

    @AfterAll
    static void stopRedis() {
        adminConnection.close();
        admin.shutdown();
        clientA.close();
        clientB.close();
        redis.close();
    }

    @Test
    void answersPresentKeysFromMemoryOnceItsPagesAreLoaded() throws Exception {
        String name = name();
        RedisBloomFilter filter = mirrored(name, storeA, MirrorSettings.of(8 << 20, Duration.ofMinutes(10)));
        try {
            filter.load(LongStream.rangeClosed(1, 100_000).boxed());
            long pagesNeeded = (filter.geometry().byteSize() + MirrorSettings.DEFAULT_PAGE_BYTES - 1)
                    / MirrorSettings.DEFAULT_PAGE_BYTES;
            await("every page cached", () -> {
                filter.check(1L);
                for (long id = 1; id <= 2_000; id++) {
                    filter.check(id);
                }
                return filter.mirrorStats().orElseThrow().pages() >= pagesNeeded;
            });
            adminConnection.sync().configResetstat();
            for (long id = 1; id <= 10_000; id++) {
                assertThat(filter.check(id)).isEqualTo(Membership.PRESENT);
            }
            assertThat(bitfieldCalls()).as("Redis checks for 10,000 present keys").isZero();
            assertThat(filter.mirrorStats().orElseThrow().hits()).isGreaterThanOrEqualTo(10_000);
        }
        finally {
            filter.close();
        }
    }

    @Test
    void confirmsAClearBitWithRedisAndNeverBlocksAKeyOnlyRedisHas() throws Exception {
        String name = name();
        RedisBloomFilter mirrored = mirrored(name, storeA, MirrorSettings.of(8 << 20, Duration.ofMinutes(10)));
        RedisBloomFilter unmirrored = RedisBloomFilter.builder(name, geometry(), storeB).checkTimeout(TIMEOUT).build();
        try {
            mirrored.load(LongStream.rangeClosed(1, 1_000).boxed());
            warmAllPages(mirrored);
            List<Long> absent = absentKeys(mirrored, 200);
            for (Long id : absent) {
                unmirrored.add(id);
            }
            for (Long id : absent) {
                assertThat(mirrored.check(id)).as("added where this mirror cannot hear it").isEqualTo(Membership.PRESENT);
            }
            assertThat(mirrored.mirrorStats().orElseThrow().confirmed()).isGreaterThanOrEqualTo(1);
        }
        finally {
            mirrored.close();
        }
    }

    @Test
    void aKeyAddedOnOneInstancePassesOnTheOtherAtOnceAndSoonFromItsMemory() throws Exception {
        String name = name();
        RedisBloomFilter a = mirrored(name, storeA, MirrorSettings.of(8 << 20, Duration.ofMinutes(10)));
        RedisBloomFilter b = mirrored(name, storeB, MirrorSettings.of(8 << 20, Duration.ofMinutes(10)));
        try {
            a.load(LongStream.rangeClosed(1, 1_000).boxed());
            warmAllPages(a);
            warmAllPages(b);
            List<Long> added = absentKeys(b, 1_000);
            for (Long id : added) {
                a.add(id);
                assertThat(b.check(id)).as("key %s just added on the other instance", id).isEqualTo(Membership.PRESENT);
            }
            await("b's mirror heard every add", () -> added.stream().allMatch(id -> {
                long hits = b.mirrorStats().orElseThrow().hits();
                b.check(id);
                return b.mirrorStats().orElseThrow().hits() == hits + 1;
            }));
        }
        finally {
            a.close();
            b.close();
        }
    }

    @Test
    void followsASwapOnAnotherInstanceWithoutAFalseNegative() throws Exception {
        String name = name();
        RedisBloomFilter a = mirrored(name, storeA, MirrorSettings.of(8 << 20, Duration.ofMinutes(10)));
        RedisBloomFilter b = mirrored(name, storeB, MirrorSettings.of(8 << 20, Duration.ofMinutes(10)));
        try {
            a.load(LongStream.rangeClosed(1, 5_000).boxed());
            warmAllPages(b);
            a.load(LongStream.rangeClosed(5_001, 10_000).boxed());
            for (long id = 5_001; id <= 10_000; id++) {
                assertThat(b.check(id)).isEqualTo(Membership.PRESENT);
            }
            await("b's mirror emptied by the swap, then reloaded", () -> {
                List<Long> dropped = LongStream.rangeClosed(1, 5_000).boxed().toList();
                return dropped.stream().filter(id -> b.check(id) == Membership.ABSENT).count() > 4_500;
            });
        }
        finally {
            a.close();
            b.close();
        }
    }

    @Test
    void trustAbsentBlocksFromMemoryOnlyAFilterThatIsComplete() throws Exception {
        String name = name();
        RedisBloomFilter filter = mirrored(name, storeA, new MirrorSettings(8 << 20, Duration.ofMinutes(10),
                MirrorSettings.DEFAULT_PAGE_BYTES, true));
        try {
            warmAllPages(filter);
            for (long id = 50_000_000; id < 50_001_000; id++) {
                assertThat(filter.check(id)).as("never loaded: all-zero pages are not 'absent'")
                        .isEqualTo(Membership.NOT_READY);
            }

            filter.load(LongStream.rangeClosed(1, 10_000).boxed());
            warmAllPages(filter);
            long absentId = absentKeys(filter, 1).get(0);
            long callsBefore = bitfieldCalls();
            assertThat(filter.check(absentId)).isEqualTo(Membership.ABSENT);
            assertThat(bitfieldCalls()).as("a complete filter's absent key is blocked from memory").isEqualTo(callsBefore);
        }
        finally {
            filter.close();
        }
    }

    @Test
    void staysWithinItsMemoryBudgetForAFilterTwiceThatSize() throws Exception {
        String name = name();
        FilterGeometry large = FilterGeometry.of(1_000_000, 0.01);
        long budget = large.byteSize() / 2;
        RedisBloomFilter filter = RedisBloomFilter.builder(name, large, storeA).checkTimeout(TIMEOUT)
                .mirror(MirrorSettings.of(budget, Duration.ofMinutes(10))).build();
        try {
            filter.load(LongStream.rangeClosed(1, 1_000_000).boxed());
            for (int pass = 0; pass < 3; pass++) {
                for (long id = 1; id <= 1_000_000; id += 97) {
                    assertThat(filter.check(id)).isEqualTo(Membership.PRESENT);
                }
            }
            assertThat(filter.mirrorStats().orElseThrow().memoryBytes()).isPositive().isLessThanOrEqualTo(budget);
        }
        finally {
            filter.close();
        }
    }

    @Test
    void keepsAnsweringPresentFromMemoryWhileRedisIsDown() throws Exception {
        try (RedisServer doomed = RedisServer.start()) {
            LettuceClients redisClient = LettuceClients.standalone(doomed.port());
            RedisBloomFilter filter = RedisBloomFilter.builder(name(), geometry(),
                    LettuceBitmapStore.create(redisClient, Duration.ofSeconds(5))).checkTimeout(Duration.ofMillis(50))
                    .mirror(MirrorSettings.of(8 << 20, Duration.ofMinutes(10))).build();
            try {
                filter.load(LongStream.rangeClosed(1, 1_000).boxed());
                warmAllPages(filter);
                List<Long> absent = absentKeys(filter, 5);
                doomed.stop();
                for (long id = 1; id <= 1_000; id++) {
                    assertThat(filter.check(id)).isEqualTo(Membership.PRESENT);
                }
                assertThat(filter.check(absent.get(0))).as("absent keys follow on-redis-failure")
                        .isEqualTo(Membership.UNAVAILABLE);
            }
            finally {
                filter.close();
                redisClient.close();
            }
        }
    }

    private static RedisBloomFilter mirrored(String name, LettuceBitmapStore store, MirrorSettings settings) {
        return RedisBloomFilter.builder(name, geometry(), store).checkTimeout(TIMEOUT).mirror(settings).build();
    }

    private static FilterGeometry geometry() {
        return FilterGeometry.of(100_000, 0.01);
    }

    private static void warmAllPages(RedisBloomFilter filter) throws InterruptedException {
        long pages = (filter.geometry().byteSize() + MirrorSettings.DEFAULT_PAGE_BYTES - 1) / MirrorSettings.DEFAULT_PAGE_BYTES;
        await("pages of " + filter.name(), () -> {
            for (long id = 1; id <= 3_000; id++) {
                filter.check(id);
            }
            return filter.mirrorStats().orElseThrow().pages() >= pages;
        });
    }

    private static List<Long> absentKeys(RedisBloomFilter filter, int count) {
        List<Long> absent = new ArrayList<>();
        for (long id = 50_000_000; absent.size() < count; id++) {
            if (filter.check(id) == Membership.ABSENT) {
                absent.add(id);
            }
        }
        return absent;
    }

    /**
     * {@code trust-absent} blocks on a clear bit, so a page read before an add and cached after it
     * (the add's bits are then missing until the page's next refresh) must not be trusted: an add
     * made by this instance, or heard from another, before the check.
     */
    @Test
    void aClearBitOfAPageReadBeforeAnAddIsNotTrustedUntilThePageIsReadAgain() throws Exception {
        java.util.concurrent.atomic.AtomicLong heldReply = new java.util.concurrent.atomic.AtomicLong(-1);
        java.util.concurrent.ExecutorService loader = java.util.concurrent.Executors.newCachedThreadPool();
        try (dev.bloomguard.embedded.DelayingProxy proxy = dev.bloomguard.embedded.DelayingProxy.start(redis.port(),
                reply -> reply == heldReply.get(), Duration.ofMillis(800))) {
            LettuceClients proxied = LettuceClients.standalone(proxy.port());
            try {
                FilterGeometry geometry = FilterGeometry.of(10_000, 0.01);
                RedisBloomFilter writer = RedisBloomFilter.builder(name(), geometry, storeA).build();
                writer.load(LongStream.rangeClosed(1, 1_000).boxed());
                LettuceBitmapStore slowReads = LettuceBitmapStore.create(proxied, Duration.ofSeconds(10));
                assertThat(slowReads.get("connected")).isEmpty();
                BitmapMirror mirror = new BitmapMirror(writer.name(), writer.keys()::live, geometry, slowReads,
                        new MirrorSettings(1 << 20, Duration.ofMillis(300), MirrorSettings.DEFAULT_PAGE_BYTES, true), loader);
                long added = 5_000;
                long[] offsets = new long[geometry.hashes()];
                int shard = dev.bloomguard.core.hash.BitPositions.fillSharded(added, geometry.bits(), geometry.hashes(),
                        geometry.shards(), offsets, 0);

                heldReply.set(proxy.replies()); // the page's GETRANGE, the next reply on that connection
                assertThat(mirror.lookup(shard, offsets, offsets.length)).isEqualTo(BitmapMirror.Local.NOT_CACHED);
                await("Redis read the page", () -> proxy.replies() > heldReply.get());
                writer.add(added);
                mirror.apply(shard, offsets, 0, offsets.length); // as the filter's own add, or its event, does
                // (Looked at through the stats: a lookup of a page not cached yet would read it again.)
                await("the page cached", () -> mirror.stats().pages() > 0);

                assertThat(mirror.lookup(shard, offsets, offsets.length)).as("the image read before the add")
                        .isEqualTo(BitmapMirror.Local.CLEAR_BIT);
                assertThat(mirror.knowsSet(shard, geometry.markerOffset())).as("a complete filter").isTrue();
                assertThat(mirror.knowsClear(shard, offsets, offsets.length)).as("a clear bit to block on").isFalse();
                // Read again, the page knows the add, and trusts the clear bits of keys nobody added.
                long[] absent = new long[geometry.hashes()];
                long nobodyAdded = LongStream.rangeClosed(100_001, 200_000)
                        .filter(id -> writer.check(id) == Membership.ABSENT).findFirst().orElseThrow();
                assertThat(dev.bloomguard.core.hash.BitPositions.fillSharded(nobodyAdded, geometry.bits(),
                        geometry.hashes(), geometry.shards(), absent, 0)).as("one shard").isEqualTo(shard);
                await("the page read again", () -> mirror.knowsClear(shard, absent, absent.length));
                assertThat(mirror.lookup(shard, offsets, offsets.length)).isEqualTo(BitmapMirror.Local.PRESENT);
                assertThat(mirror.knowsClear(shard, offsets, offsets.length)).isFalse();
            }
            finally {
                proxied.close();
                loader.shutdownNow();
            }
        }
    }

    private static long bitfieldCalls() {
        return adminConnection.sync().info("commandstats").lines().filter(line -> line.startsWith("cmdstat_bitfield_ro:"))
                .map(line -> Long.parseLong(line.replaceAll(".*calls=(\\d+).*", "$1"))).findFirst().orElse(0L);
    }

    private static String name() {
        return "mirrored" + (++filterNumber);
    }

    private static LettuceClients connect() {
        return LettuceClients.standalone(redis.port());
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out waiting for: " + what);
            }
            Thread.sleep(20);
        }
    }
}
