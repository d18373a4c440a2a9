package dev.bloomguard.core.mirror;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.LongStream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.hash.BitPositions;
import dev.bloomguard.core.redis.LettuceBitmapStore;
import dev.bloomguard.core.redis.LettuceClients;
import dev.bloomguard.core.redis.LettuceConnections;
import dev.bloomguard.embedded.DelayingProxy;
import dev.bloomguard.embedded.RedisServer;
import dev.bloomguard.testsupport.AbsentKeys;
import dev.bloomguard.testsupport.Await;
import dev.bloomguard.testsupport.RedisServerExtension;
import io.lettuce.core.AclSetuserArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

/**
 * The local mirror against a real Redis: present keys answered from memory, clear bits always
 * confirmed, other instances' adds and swaps followed, memory kept within budget.
 */
class BitmapMirrorTests {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static LettuceClients clientA;
    private static LettuceClients clientB;
    private static LettuceBitmapStore storeA;
    private static LettuceBitmapStore storeB;
    private static int filterNumber;

    @BeforeAll
    static void openStores() {
        clientA = connect();
        clientB = connect();
        storeA = LettuceBitmapStore.create(clientA, Duration.ofSeconds(10));
        storeB = LettuceBitmapStore.create(clientB, Duration.ofSeconds(10));
    }

    @AfterAll
    static void closeStores() {
        clientA.close();
        clientB.close();
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
            redis.admin().configResetstat();
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

    /**
     * {@code refresh-after: 1000d}-style values past what a long of nanoseconds holds (292 years)
     * failed the application with an ArithmeticException that named no property: a page then
     * simply never grows old.
     */
    @Test
    void aRefreshAfterOfCenturiesStartsAndAnswersFromMemory() throws Exception {
        String name = name();
        RedisBloomFilter filter = mirrored(name, storeA, MirrorSettings.of(8 << 20, Duration.ofDays(365L * 1_000)));
        try {
            filter.load(LongStream.rangeClosed(1, 1_000).boxed());
            warmAllPages(filter);
            redis.admin().configResetstat();
            for (long id = 1; id <= 1_000; id++) {
                assertThat(filter.check(id)).isEqualTo(Membership.PRESENT);
            }
            assertThat(bitfieldCalls()).as("Redis checks for 1,000 present keys").isZero();
            assertThat(LongStream.range(50_000_000, 50_001_000).filter(id -> filter.check(id) == Membership.ABSENT).count())
                    .as("absent keys blocked, of 1,000").isGreaterThanOrEqualTo(900);
        }
        finally {
            filter.close();
        }
    }

    @Test
    void refusesARefreshAfterBelowAMillisecondAndNamesIt() {
        assertThatThrownBy(() -> MirrorSettings.of(8 << 20, Duration.ofNanos(999_999)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("local-mirror.refresh-after (PT0.000999999S) must be at least a millisecond");
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
            awaitHearing(filter);
            warmTrustedPages(filter);
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
        return AbsentKeys.first(count, LongStream.iterate(50_000_000, id -> id + 1), id -> filter.check(id) == Membership.ABSENT);
    }

    /**
     * {@code trust-absent} blocks on a clear bit, so a page read before an add and cached after it
     * (the add's bits are then missing until the page's next refresh) must not be trusted: an add
     * made by this instance, or heard from another, before the check.
     */
    @Test
    void aClearBitOfAPageReadBeforeAnAddIsNotTrustedUntilThePageIsReadAgain() throws Exception {
        AtomicLong heldReply = new AtomicLong(-1);
        ExecutorService loader = Executors.newCachedThreadPool();
        try (DelayingProxy proxy = DelayingProxy.start(redis.port(),
                reply -> reply == heldReply.get(), Duration.ofMillis(800))) {
            LettuceClients proxied = LettuceClients.standalone(proxy.port());
            try {
                FilterGeometry geometry = FilterGeometry.of(10_000, 0.01);
                RedisBloomFilter writer = RedisBloomFilter.builder(name(), geometry, storeA).build();
                writer.load(LongStream.rangeClosed(1, 1_000).boxed());
                LettuceBitmapStore slowReads = LettuceBitmapStore.create(proxied, Duration.ofSeconds(10));
                assertThat(slowReads.get("connected")).isEmpty();
                BitmapMirror mirror = new BitmapMirror(writer.name(), writer.keys()::live, geometry, slowReads,
                        new MirrorSettings(1 << 20, Duration.ofMillis(300), MirrorSettings.DEFAULT_PAGE_BYTES, true), () -> true,
                        loader);
                long added = 5_000;
                long[] offsets = new long[geometry.hashes()];
                int shard = BitPositions.fillSharded(added, geometry.bits(), geometry.hashes(),
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
                assertThat(BitPositions.fillSharded(nobodyAdded, geometry.bits(),
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

    /**
     * A rolling change that turns the mirror on: the instances still on the old release have
     * none. Their adds must reach a mirror that trusts its clear bits, or it blocks the key from
     * memory until the page's next refresh.
     */
    @Test
    void aKeyAddedOnAnInstanceWithoutAMirrorIsNotBlockedByATrustingOne() throws Exception {
        String name = name();
        RedisBloomFilter trusting = mirrored(name, storeA, trusting(Duration.ofMinutes(10)));
        RedisBloomFilter plain = RedisBloomFilter.builder(name, geometry(), storeB).checkTimeout(TIMEOUT).build();
        try {
            plain.load(LongStream.rangeClosed(1, 10_000).boxed());
            awaitHearing(trusting);
            warmTrustedPages(trusting);
            long callsBefore = bitfieldCalls();
            List<Long> added = absentKeys(trusting, 200);
            assertThat(bitfieldCalls()).as("absent keys blocked from memory").isEqualTo(callsBefore);

            added.forEach(plain::add);
            await("every add heard by the trusting mirror",
                    () -> added.stream().allMatch(id -> trusting.check(id) == Membership.PRESENT));
            long stillBlocked = LongStream.range(60_000_000, 60_001_000)
                    .filter(id -> trusting.check(id) == Membership.ABSENT).count();
            assertThat(stillBlocked).as("absent keys of 1,000 still blocked").isGreaterThan(900);
        }
        finally {
            trusting.close();
            plain.close();
        }
    }

    /**
     * A writer's add lands but its message never reaches Redis: its ACL refuses the channel
     * (NOPERM), as an open circuit or a cancelled command would lose it too. A trusting mirror
     * that still hears its own pings must not go on blocking the key from a page read before the
     * add: the shard's add counts, read at each renewal of its trust, show an add it never heard.
     */
    @Test
    void anAddWhoseMessageNeverReachedRedisIsNotBlockedFromATrustingMirrorsMemory() throws Exception {
        redis.admin().aclSetuser("no-channels", AclSetuserArgs.Builder.on().addPassword("secret").allKeys()
                .allCommands().resetChannels());
        RedisClient client = RedisClient.create(RedisURI.builder().withHost("127.0.0.1").withPort(redis.port())
                .withAuthentication("no-channels", "secret".toCharArray()).build());
        String name = name();
        RedisBloomFilter trusting = mirrored(name, storeA, trusting(Duration.ofMinutes(10)));
        try (LettuceConnections connections = LettuceConnections.owning(client)) {
            RedisBloomFilter writer = RedisBloomFilter.builder(name, geometry(),
                    LettuceBitmapStore.create(connections, Duration.ofSeconds(10))).checkTimeout(TIMEOUT).build();
            writer.load(LongStream.rangeClosed(1, 10_000).boxed());
            awaitHearing(trusting);
            warmTrustedPages(trusting);
            List<Long> added = absentKeys(trusting, 50);

            added.forEach(writer::add);

            await("adds never announced, noticed", () -> added.stream().noneMatch(id -> trusting.check(id) == Membership.ABSENT));
            assertThat(added).allMatch(id -> trusting.check(id) == Membership.PRESENT);
            warmTrustedPages(trusting);
            long blocked = LongStream.range(60_000_000, 60_001_000)
                    .filter(id -> trusting.check(id) == Membership.ABSENT).count();
            assertThat(blocked).as("absent keys of 1,000 still blocked").isGreaterThan(900);
        }
        finally {
            trusting.close();
        }
    }

    /**
     * Pub/sub drops what is published while a subscriber is disconnected (a network cut, a
     * Redis that killed a slow subscriber over its output buffer limit), and the client
     * resubscribes by itself. A trusting mirror must neither block from memory while it cannot
     * hear, nor trust afterwards a page read before the adds it never heard of.
     */
    @Test
    void addsMadeWhileATrustingMirrorWasCutOffAreNotBlockedFromItsMemory() throws Exception {
        try (DelayingProxy proxy = DelayingProxy.start(redis.port(),
                reply -> false, Duration.ZERO)) {
            LettuceClients proxied = LettuceClients.standalone(proxy.port());
            String name = name();
            RedisBloomFilter writer = RedisBloomFilter.builder(name, geometry(), storeB).checkTimeout(TIMEOUT).build();
            RedisBloomFilter trusting = mirrored(name, LettuceBitmapStore.create(proxied, Duration.ofSeconds(2)),
                    trusting(Duration.ofMinutes(10)));
            try {
                writer.load(LongStream.rangeClosed(1, 10_000).boxed());
                awaitHearing(trusting);
                warmTrustedPages(trusting);
                List<Long> added = absentKeys(trusting, 200);

                proxy.cut(Duration.ofSeconds(3));
                await("the cut noticed", () -> !trusting.mirrorStats().orElseThrow().hearing());
                added.forEach(writer::add);
                assertThat(added.subList(0, 3)).as("added while it could not hear").noneMatch(id -> trusting.check(id) == Membership.ABSENT);
                await("the trusting instance subscribed again", () -> subscribers(writer) == 1);
                awaitHearing(trusting);
                assertThat(added).as("added while it could not hear, checked after").allMatch(id -> trusting.check(id) == Membership.PRESENT);

                warmTrustedPages(trusting);
                long callsBefore = bitfieldCalls();
                long blocked = LongStream.range(60_000_000, 60_001_000)
                        .filter(id -> trusting.check(id) == Membership.ABSENT).count();
                assertThat(blocked).as("absent keys of 1,000 blocked").isGreaterThan(900);
                assertThat(bitfieldCalls()).as("from memory again, once its pages are read again").isEqualTo(callsBefore);
            }
            finally {
                trusting.close();
                writer.close();
                proxied.close();
            }
        }
    }

    /**
     * Reads every page of a trusting mirror through checks of absent keys (Redis answers them,
     * and an answer "absent" applies no bits), until it blocks such keys without asking Redis.
     * Checks of present keys would not do: bits Redis confirms on a page being read make that
     * page one to doubt until it is read again.
     */
    private static void warmTrustedPages(RedisBloomFilter filter) throws InterruptedException {
        await("the trusted pages of " + filter.name(), () -> {
            LongStream.range(70_000_000, 70_003_000).forEach(filter::check);
            long callsBefore = bitfieldCalls();
            LongStream.range(70_000_000, 70_000_100).forEach(filter::check);
            return bitfieldCalls() == callsBefore;
        });
    }

    /**
     * A firewall or load balancer that drops an idle connection without a word: the client
     * thinks it is subscribed, and nothing arrives. The mirror hears its own pings no more, and
     * stops blocking from memory within seconds.
     */
    @Test
    void aTrustingMirrorWhoseMessagesStopArrivingStopsBlockingFromMemory() throws Exception {
        AtomicBoolean stalled = new AtomicBoolean();
        try (DelayingProxy proxy = DelayingProxy.start(redis.port(),
                reply -> stalled.get(), Duration.ofSeconds(60))) {
            LettuceClients proxied = LettuceClients.standalone(proxy.port());
            String name = name();
            RedisBloomFilter writer = RedisBloomFilter.builder(name, geometry(), storeB).checkTimeout(TIMEOUT).build();
            RedisBloomFilter trusting = RedisBloomFilter.builder(name, geometry(),
                    LettuceBitmapStore.create(proxied, Duration.ofSeconds(1))).checkTimeout(Duration.ofMillis(200))
                    .mirror(trusting(Duration.ofMinutes(10))).build();
            try {
                writer.load(LongStream.rangeClosed(1, 10_000).boxed());
                awaitHearing(trusting);
                warmTrustedPages(trusting);
                List<Long> added = absentKeys(trusting, 3);

                stalled.set(true);
                long stalledAt = System.nanoTime();
                await("its own pings missed", () -> !trusting.mirrorStats().orElseThrow().hearing());
                assertThat(Duration.ofNanos(System.nanoTime() - stalledAt)).as("how long it trusted what it could not hear")
                        .isLessThan(Duration.ofSeconds(6));
                added.forEach(writer::add);
                assertThat(added).as("added while nothing reached it").noneMatch(id -> trusting.check(id) == Membership.ABSENT);
            }
            finally {
                stalled.set(false);
                proxy.close();
                trusting.close();
                writer.close();
                proxied.close();
            }
        }
    }

    /**
     * FLUSHALL (or a restart with nothing): the trust lease goes with {@code :meta}, writers stop
     * announcing, and the cached pages would miss every add from then on. Trust ends at the next
     * renewal, not when the lease would have run out.
     */
    @Test
    void aTrustingMirrorStopsBlockingFromMemoryOnceRedisLostTheFilter() throws Exception {
        String name = name();
        RedisBloomFilter plain = RedisBloomFilter.builder(name, geometry(), storeB).checkTimeout(TIMEOUT).build();
        RedisBloomFilter trusting = mirrored(name, storeA, trusting(Duration.ofMinutes(10)));
        try {
            plain.load(LongStream.rangeClosed(1, 10_000).boxed());
            awaitHearing(trusting);
            warmTrustedPages(trusting);
            List<Long> addedAfter = absentKeys(trusting, 3);

            redis.admin().flushall();
            long flushedAt = System.nanoTime();
            await("trust ended", () -> !trusting.mirrorStats().orElseThrow().hearing());
            assertThat(Duration.ofNanos(System.nanoTime() - flushedAt)).as("how long it trusted a lost filter")
                    .isLessThan(Duration.ofSeconds(5));
            addedAfter.forEach(plain::add);
            assertThat(addedAfter).as("added after the flush").noneMatch(id -> trusting.check(id) == Membership.ABSENT);
        }
        finally {
            trusting.close();
            plain.close();
        }
    }

    /** Nobody trusts a mirror: an instance without one announces nothing, and costs no PUBLISH. */
    @Test
    void withoutATrustingMirrorAWriterWithoutAMirrorPublishesNothing() throws Exception {
        String name = name();
        RedisBloomFilter plain = RedisBloomFilter.builder(name, geometry(), storeB).checkTimeout(TIMEOUT).build();
        RedisBloomFilter confirming = mirrored(name, storeA, MirrorSettings.of(8 << 20, Duration.ofMinutes(10)));
        try {
            plain.load(LongStream.rangeClosed(1, 1_000).boxed());
            long publishedBefore = calls("publish");
            LongStream.rangeClosed(1_001, 1_100).forEach(plain::add);
            assertThat(calls("publish")).as("PUBLISH calls for 100 adds without a trusting mirror").isEqualTo(publishedBefore);
            assertThat(LongStream.rangeClosed(1_001, 1_100).mapToObj(confirming::check)).containsOnly(Membership.PRESENT);

            AtomicInteger addsHeard = new AtomicInteger();
            StatefulRedisPubSubConnection<byte[], byte[]> listening = redis.adminClient()
                    .connectPubSub(ByteArrayCodec.INSTANCE);
            listening.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(byte[] channel, byte[] message) {
                    if (message.length > 0 && message[0] == 'C') { // an add, with its writer's count
                        addsHeard.incrementAndGet();
                    }
                }
            });
            listening.sync().subscribe(plain.keys().events().getBytes(StandardCharsets.UTF_8));
            RedisBloomFilter trusting = mirrored(name, storeA, trusting(Duration.ofMinutes(10)));
            try {
                awaitHearing(trusting);
                LongStream.rangeClosed(1_101, 1_200).forEach(plain::add);
                await("the adds announced to the trusting mirror", () -> addsHeard.get() == 100);
            }
            finally {
                trusting.close();
                listening.close();
            }
        }
        finally {
            plain.close();
            confirming.close();
        }
    }

    private static MirrorSettings trusting(Duration refreshAfter) {
        return new MirrorSettings(8 << 20, refreshAfter, MirrorSettings.DEFAULT_PAGE_BYTES, true);
    }

    private static void awaitHearing(RedisBloomFilter filter) throws InterruptedException {
        await(filter.name() + " hears other instances", () -> filter.mirrorStats().orElseThrow().hearing());
    }

    private static long subscribers(RedisBloomFilter filter) {
        return redis.admin().pubsubNumsub(filter.keys().events()).values().iterator().next();
    }

    private static long bitfieldCalls() {
        return calls("bitfield_ro");
    }

    private static long calls(String command) {
        return redis.commandCalls(command);
    }

    private static String name() {
        return "mirrored" + (++filterNumber);
    }

    private static LettuceClients connect() {
        return LettuceClients.standalone(redis.port());
    }

    private static void await(String what, BooleanSupplier condition) {
        Await.until(what, Duration.ofSeconds(20), condition);
    }
}
