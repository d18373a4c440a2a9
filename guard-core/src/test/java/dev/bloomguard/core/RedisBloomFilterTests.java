package dev.bloomguard.core;

import static java.nio.charset.StandardCharsets.UTF_8;
import static dev.bloomguard.core.redis.RealRedis.GENEROUS_CHECK_TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.NoSuchElementException;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.hash.KeyType;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.BitmapStoreException;
import dev.bloomguard.core.redis.LettuceBitmapStore;
import dev.bloomguard.core.redis.LettuceClients;
import dev.bloomguard.core.redis.RealRedis;
import dev.bloomguard.embedded.RedisServer;
import dev.bloomguard.testsupport.AbsentKeys;
import dev.bloomguard.testsupport.Await;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The filter against a real {@code redis-server} started by the test: no Redis, no test run.
 * Checks get a generous timeout so a slow CI machine cannot turn PRESENT into UNAVAILABLE;
 * only the outage test uses the production-like 50 ms.
 */
class RedisBloomFilterTests {

    private static final Logger log = LoggerFactory.getLogger(RedisBloomFilterTests.class);

    @RegisterExtension
    static final RealRedis REDIS = new RealRedis();

    @Test
    void blocksNothingThatWasLoaded() {
        RedisBloomFilter filter = filter(FilterGeometry.of(200_000, 0.01));
        // Ids arrive as whatever type the warmup query returns; checks come in as Long.
        LoadReport report = filter.load(LongStream.rangeClosed(1, 200_000).mapToObj(RedisBloomFilterTests::asMixedType));

        assertThat(report.keys()).isEqualTo(200_000);
        List<Long> ids = LongStream.rangeClosed(1, 200_000).boxed().toList();
        for (List<Long> batch : batches(ids, 1_000)) {
            List<Membership> answers = filter.checkAll(batch);
            assertThat(answers).hasSize(batch.size());
            assertThat(answers).as("ids %s..%s", batch.get(0), batch.get(batch.size() - 1))
                    .containsOnly(Membership.PRESENT);
        }
        for (long id = 1; id <= 200_000; id += 997) {
            assertThat(filter.check(id)).as("id %s", id).isEqualTo(Membership.PRESENT);
            assertThat(filter.check(Long.toString(id))).isEqualTo(Membership.PRESENT);
            assertThat(filter.check((int) id)).isEqualTo(Membership.PRESENT);
            assertThat(filter.mightContain(id)).isTrue();
        }
    }

    @Test
    void aKeyTypedFilterFindsLoadedAndAddedKeysWhateverTheirSpellingAndBlocksTheRest() {
        RedisBloomFilter integers = REDIS.filter(FilterGeometry.of(10_000, 0.01)).keyType(KeyType.INTEGER).build();
        integers.load(LongStream.rangeClosed(1, 5_000).boxed());
        integers.add("  0000007001 ");

        assertThat(integers.check("0042")).isEqualTo(Membership.PRESENT);
        assertThat(integers.check(" +42")).isEqualTo(Membership.PRESENT);
        assertThat(integers.checkAll(List.of("0042", "4_2", new BigDecimal("42.00"))))
                .containsOnly(Membership.PRESENT);
        assertThat(integers.check(7001L)).isEqualTo(Membership.PRESENT);
        assertThat(integers.checkAsync("07001").join()).isEqualTo(Membership.PRESENT);
        assertThat(integers.check("abc")).isEqualTo(Membership.ABSENT);
        long blocked = LongStream.rangeClosed(10_001, 11_000)
                .filter(id -> integers.check(String.format("%08d", id)) == Membership.ABSENT).count();
        assertThat(blocked).as("absent ids written with leading zeros that are blocked").isGreaterThan(950);

        RedisBloomFilter emails = RedisBloomFilter.builder(REDIS.filterName() + "-ci", FilterGeometry.of(10_000, 0.01), REDIS.store())
                .checkTimeout(GENEROUS_CHECK_TIMEOUT).keyType(KeyType.TEXT_CASE_INSENSITIVE).build();
        emails.load(List.of("Alice@Example.com", "bob@example.com").iterator());

        assertThat(emails.check("ALICE@example.COM")).isEqualTo(Membership.PRESENT);
        assertThat(emails.check("Bob@Example.com")).isEqualTo(Membership.PRESENT);
        assertThat(emails.check("carol@example.com")).isEqualTo(Membership.ABSENT);
        assertThat(emails.keys().live()).contains(":text-case-insensitive:");
    }

    @Test
    void letsThroughAboutTheConfiguredShareOfKeysNeverAdded() {
        double fpp = 0.01;
        RedisBloomFilter filter = filter(FilterGeometry.of(200_000, fpp));
        filter.load(LongStream.rangeClosed(1, 200_000).boxed());

        NeverAddedAnswers answers = NeverAddedAnswers.of(filter, 200_000);
        double measured = answers.falsePositiveRate();
        log.info("Measured false-positive rate {} over {} keys never added (configured {}, expected {})",
                measured, answers.asked(), fpp, filter.geometry().expectedFpp(200_000));

        assertThat(answers.falsePositives() + answers.absent()).as("every answer decided").isEqualTo(answers.asked());
        assertThat(measured).isBetween(0.5 * fpp, 1.5 * fpp);
    }

    /** The swap script of release 0.1, which replays every journal entry as packed 4-byte offsets. */
    private static final String SWAP_SCRIPT_0_1 = """
            if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
            local entries = redis.call('LRANGE', KEYS[3], 0, -1)
            for i = 1, #entries do
              local entry = entries[i]
              for j = 1, #entry, 4 do
                local b1, b2, b3, b4 = string.byte(entry, j, j + 3)
                redis.call('SETBIT', KEYS[1], ((b1 * 256 + b2) * 256 + b3) * 256 + b4, 1)
              end
            end
            redis.call('PERSIST', KEYS[1])
            redis.call('RENAME', KEYS[1], KEYS[2])
            redis.call('DEL', KEYS[3], KEYS[4])
            if #ARGV > 0 then redis.call('HSET', KEYS[4], unpack(ARGV)) end
            return #entries
            """;

    /**
     * A load killed mid-way (its mark never taken out) during a rolling upgrade, then a swap by an
     * instance still on 0.1: the mark must read to that script as ordinary offsets, not grow the
     * bitmap to hundreds of megabytes and fail; and a later load of this release still swaps and
     * replays every real add.
     */
    @Test
    void aMarkLeftByAKilledLoadIsHarmlessToTheSwapOfAnEarlierRelease() {
        RedisBloomFilter filter = filter(FilterGeometry.of(10_000, 0.01));
        filter.load(LongStream.rangeClosed(1, 1_000).boxed());
        filter.beginLoad(); // never closed: the process died
        filter.add(5_000L);
        String staging = filter.keys().newStaging(0);
        RedisCommands<byte[], byte[]> connection = REDIS.client().commands();
        byte[] bitmap = new byte[(int) filter.geometry().byteSize()];
        connection.set(staging.getBytes(UTF_8), bitmap);
        Long replayed = connection.eval(SWAP_SCRIPT_0_1, ScriptOutputType.INTEGER, new byte[][] {
                staging.getBytes(UTF_8), (filter.keys().live(0) + ":old").getBytes(UTF_8),
                filter.keys().journal(0).getBytes(UTF_8), (filter.keys().meta(0) + ":old").getBytes(UTF_8) });
        // The first load's mark too: a swapped load's mark stays in the journal for the retention,
        // skipped by this release's replays.
        assertThat(replayed).as("both marks and the add, replayed without an error").isEqualTo(3);
        assertThat(connection.strlen((filter.keys().live(0) + ":old").getBytes(UTF_8)))
                .as("the bitmap did not grow past the marker's byte and the mark's low offsets")
                .isLessThanOrEqualTo(Math.max(filter.geometry().byteSize(), 8_192));
    }

    @Test
    void aFirstLoadOfAnEmptyTableGoesLiveButALoadFarSmallerThanTheLiveFilterIsRefusedUnlessForced() {
        RedisBloomFilter filter = filter(FilterGeometry.of(10_000, 0.01));
        assertThat(filter.load(Stream.empty()).keys()).as("a new application's empty table").isZero();
        assertThat(filter.isReady()).isTrue();

        filter.load(LongStream.rangeClosed(1, 1_000).boxed());
        filter.addAll(LongStream.rangeClosed(1_001, 1_200).boxed().toList());
        // Compared with the last load's 1,000 keys: adds are one journal entry per call, not per key.
        assertThatThrownBy(() -> filter.load(LongStream.rangeClosed(1, 499).boxed().iterator(), "src", false))
                .isInstanceOf(LoadRefusedException.class).hasMessageContaining("1000");
        for (long id = 1; id <= 1_200; id++) {
            assertThat(filter.check(id)).as("id %s after the refused load", id).isEqualTo(Membership.PRESENT);
        }
        assertThat(filter.checkAll(absentKeys(filter, 100))).containsOnly(Membership.ABSENT);

        assertThat(filter.load(LongStream.rangeClosed(1, 500).boxed().iterator(), "src", false).keys())
                .as("half the live filter is within the default max shrink").isEqualTo(500);
        assertThat(filter.load(Stream.<Long>empty().iterator(), "src", true).keys()).as("forced").isZero();
    }

    /**
     * Keys committed after the load's snapshot reach the new bitmap only through the journal; a
     * flush while the load reads its source takes that journal away, so the swap must not happen.
     */
    @Test
    void aLoadDuringWhichRedisLosesTheJournalIsNotSwappedInAndAReloadBlocksNothingReal() {
        RedisBloomFilter filter = filter(FilterGeometry.of(10_000, 0.01));
        filter.load(LongStream.rangeClosed(1, 1_000).boxed());
        List<Long> committedAfterSnapshot = LongStream.rangeClosed(5_001, 5_100).boxed().toList();
        Iterator<Long> snapshot = LongStream.rangeClosed(1, 2_000).boxed().peek(id -> {
            if (id == 1_000) {
                filter.addAll(committedAfterSnapshot);
                flushAll();
            }
        }).iterator();

        Throwable failure = catchThrowable(() -> filter.load(snapshot));

        assertThat(filter.checkAll(committedAfterSnapshot)).as("added while the load ran, then Redis was flushed")
                .doesNotContain(Membership.ABSENT);
        assertThat(failure).isInstanceOf(IncompleteLoadException.class);
        filter.load(LongStream.concat(LongStream.rangeClosed(1, 2_000), LongStream.rangeClosed(5_001, 5_100)).boxed());
        assertThat(filter.checkAll(committedAfterSnapshot)).containsOnly(Membership.PRESENT);
        assertThat(filter.checkAll(absentKeys(filter, 100))).containsOnly(Membership.ABSENT);
    }

    /**
     * A staging key that vanishes between two upload chunks is recreated, zero-filled up to the
     * offset, by the next chunk: what the store below does on its own is exactly that, with real
     * Redis commands. The swap must notice and keep the live filter.
     */
    @Test
    void aStagingKeyRecreatedZeroFilledByALaterChunkIsNotSwappedIn() {
        BitmapStore losesFirstChunk = (BitmapStore) Proxy.newProxyInstance(
                BitmapStore.class.getClassLoader(), new Class<?>[] { BitmapStore.class }, (proxy, method, args) -> {
                    if (method.getName().equals("writeBitmap")) {
                        byte[] bitmap = (byte[]) args[1];
                        int half = bitmap.length / 2;
                        RedisCommands<byte[], byte[]> connection = REDIS.client().commands();
                        byte[] key = ((String) args[0]).getBytes(UTF_8);
                        connection.set(key, Arrays.copyOf(bitmap, half));
                        connection.del(key);
                        connection.setrange(key, half, Arrays.copyOfRange(bitmap, half, bitmap.length));
                        return null;
                    }
                    try {
                        return method.invoke(REDIS.store(), args);
                    }
                    catch (InvocationTargetException ex) {
                        throw ex.getCause();
                    }
                });
        RedisBloomFilter filter = filter(FilterGeometry.of(10_000, 0.01));
        filter.load(LongStream.rangeClosed(1, 1_000).boxed());
        RedisBloomFilter lossy = RedisBloomFilter.builder(REDIS.filterName(), FilterGeometry.of(10_000, 0.01), losesFirstChunk)
                .checkTimeout(GENEROUS_CHECK_TIMEOUT).build();

        Throwable failure = catchThrowable(() -> lossy.load(LongStream.rangeClosed(1, 2_000).boxed()));

        assertThat(filter.checkAll(LongStream.rangeClosed(1, 1_000).boxed().toList())).as("keys of the live filter")
                .containsOnly(Membership.PRESENT);
        assertThat(failure).isInstanceOf(IncompleteLoadException.class);
        filter.load(LongStream.rangeClosed(1, 2_000).boxed());
        assertThat(filter.checkAll(LongStream.rangeClosed(1, 2_000).boxed().toList())).containsOnly(Membership.PRESENT);
        assertThat(filter.checkAll(absentKeys(filter, 100))).containsOnly(Membership.ABSENT);
    }

    @Test
    void answersNotReadyNeverAbsentBeforeTheFirstLoad() {
        RedisBloomFilter filter = filter(FilterGeometry.of(1_000, 0.01));

        assertThat(filter.check("anything")).isEqualTo(Membership.NOT_READY);
        assertThat(filter.check(42L)).isEqualTo(Membership.NOT_READY);
        assertThat(filter.mightContain("anything")).isTrue();
        assertThat(filter.checkAll(List.of("a", "b", 3L))).containsExactly(
                Membership.NOT_READY, Membership.NOT_READY, Membership.NOT_READY);
        assertThat(filter.lastLoad()).isEmpty();
    }

    @Test
    void answersNotReadyAfterRedisLosesTheFilterEvenOnceAnAddRecreatesIt() {
        RedisBloomFilter filter = filter(FilterGeometry.of(1_000, 0.01));
        filter.load(Stream.of("alice", "bob"));
        assertThat(filter.check("alice")).isEqualTo(Membership.PRESENT);
        Object neverAdded = absentKey(filter);

        flushAll();

        assertThat(filter.check("alice")).isEqualTo(Membership.NOT_READY);
        assertThat(filter.check(neverAdded)).isEqualTo(Membership.NOT_READY);
        assertThat(filter.mightContain(neverAdded)).isTrue();

        filter.add("carol");

        assertThat(REDIS.store().length(filter.keys().live())).as("the add re-created a partial bitmap").isPositive();
        assertThat(filter.check("carol")).isEqualTo(Membership.NOT_READY);
        assertThat(filter.check("alice")).isEqualTo(Membership.NOT_READY);
        assertThat(filter.check(neverAdded)).isEqualTo(Membership.NOT_READY);
        assertThat(filter.checkAll(List.of("alice", neverAdded)))
                .containsExactly(Membership.NOT_READY, Membership.NOT_READY);

        filter.load(Stream.of("alice", "bob"));

        assertThat(filter.check("alice")).isEqualTo(Membership.PRESENT);
        assertThat(filter.check("carol")).as("added since the last load, replayed by the reload")
                .isEqualTo(Membership.PRESENT);
        assertThat(filter.check(neverAdded)).isEqualTo(Membership.ABSENT);
    }

    @Test
    void passesKeysAddedAfterALoadImmediately() {
        RedisBloomFilter filter = filter(FilterGeometry.of(1_000, 0.01));
        filter.load(LongStream.rangeClosed(1, 100).boxed());
        List<Object> candidates = absentKeys(filter, 12);
        Object single = candidates.get(0);
        List<Object> batch = candidates.subList(1, 11);
        Object stillAbsent = candidates.get(11);

        filter.add(single);
        filter.addAll(batch);

        assertThat(filter.check(single)).isEqualTo(Membership.PRESENT);
        assertThat(filter.checkAll(batch)).containsOnly(Membership.PRESENT);
        assertThat(filter.check(stillAbsent)).isEqualTo(Membership.ABSENT);
        assertThat(filter.mightContain(stillAbsent)).isFalse();
    }

    /**
     * An add is kept in the journal, and replayed by every swap, for at least the journal's
     * retention: long enough for the transaction that made it to commit, however many loads
     * (whose snapshots could not see the uncommitted row) swap meanwhile.
     */
    @Test
    void keepsAnAddThroughEverySwapOfTheRetentionAndLeavesItToTheSourceAfterThat() {
        RedisBloomFilter filter = REDIS.filter(FilterGeometry.of(1_000, 0.01)).journalRetention(Duration.ofMillis(300)).build();
        filter.load(LongStream.rangeClosed(1, 100).boxed());
        List<Object> candidates = absentKeys(filter, 2);
        Object addedOnly = candidates.get(0);
        Object addedAndInSource = candidates.get(1);
        filter.add(addedOnly);
        filter.add(addedAndInSource);

        for (int load = 1; load <= 3; load++) {
            LoadReport report = filter.load(Stream.concat(LongStream.rangeClosed(1, 100).boxed(), Stream.of(addedAndInSource)));
            assertThat(report.replayedAdds()).as("load %s", load).isEqualTo(2);
            assertThat(filter.check(addedOnly)).as("load %s, within the retention", load).isEqualTo(Membership.PRESENT);
        }

        sleep(350);
        filter.maintainJournal(); // rotates: the adds are now the previous generation, still kept
        sleep(350);
        filter.maintainJournal(); // rotates again: the adds are older than the retention, dropped
        LoadReport last = filter.load(Stream.concat(LongStream.rangeClosed(1, 100).boxed(), Stream.of(addedAndInSource)));
        assertThat(last.replayedAdds()).isZero();
        assertThat(filter.check(addedAndInSource)).isEqualTo(Membership.PRESENT);
        assertThat(filter.check(addedOnly)).as("the source is the truth once the retention has passed")
                .isEqualTo(Membership.ABSENT);
    }

    /**
     * Issue 11, path 4: a transaction that adds its key, then commits only after two loads
     * swapped (neither snapshot could see the row), must find its key in the filter.
     */
    @Test
    void anAddWhoseTransactionCommitsAfterTwoSwapsIsNotBlocked() {
        RedisBloomFilter filter = filter(FilterGeometry.of(10_000, 0.01));
        filter.load(LongStream.rangeClosed(1, 1_000).boxed());
        Object inOpenTransaction = absentKey(filter);
        filter.add(inOpenTransaction);

        filter.load(LongStream.rangeClosed(1, 1_000).boxed());
        filter.load(LongStream.rangeClosed(1, 1_000).boxed());
        // the transaction commits now

        assertThat(filter.check(inOpenTransaction)).isEqualTo(Membership.PRESENT);
        assertThat(filter.checkAll(absentKeys(filter, 100))).containsOnly(Membership.ABSENT);
    }

    /**
     * Issue 11, path 4: more adds than the journal holds are not silently dropped. The oldest
     * leave the journal, so the swaps of the next retention keep every bit the live filter had.
     */
    @Test
    void anOverflowingJournalDropsNoAdd() {
        RedisBloomFilter filter = REDIS.filter(FilterGeometry.of(1_000, 0.01)).journalCapacity(3).maxShrink(1).build();
        filter.load(Stream.of(1L));
        List<Object> added = absentKeys(filter, 5);
        added.forEach(filter::add);
        filter.maintainJournal();

        filter.load(Stream.of(1L));
        filter.load(Stream.of(1L));

        assertThat(filter.checkAll(added)).containsOnly(Membership.PRESENT);
        assertThat(filter.checkAll(absentKeys(filter, 100))).as("the merged filter still blocks the rest")
                .containsOnly(Membership.ABSENT);
    }

    /**
     * Issue 11, path 4 (fencing): a loader that lost its lock while a newer load began must not
     * swap its older snapshot over the newer load.
     */
    @Test
    void aLoadOvertakenByANewerLoadIsNotSwappedIn() {
        RedisBloomFilter instanceA = filter(FilterGeometry.of(10_000, 0.01));
        RedisBloomFilter instanceB = filter(FilterGeometry.of(10_000, 0.01));
        instanceA.load(LongStream.rangeClosed(1, 1_000).boxed());
        try (RedisBloomFilter.PendingLoad stale = instanceA.beginLoad()) {
            instanceB.load(LongStream.rangeClosed(1, 2_000).boxed());

            Throwable failure = catchThrowable(() -> stale.load(LongStream.rangeClosed(1, 1_000).boxed().iterator(),
                    null, null, false));

            assertThat(failure).isInstanceOf(IncompleteLoadException.class).hasMessageContaining("newer load");
        }
        assertThat(instanceA.checkAll(LongStream.rangeClosed(1, 2_000).boxed().toList()))
                .containsOnly(Membership.PRESENT);
        assertThat(instanceA.checkAll(absentKeys(instanceA, 100))).containsOnly(Membership.ABSENT);
    }

    /**
     * Issue 11, path 4: replaying a big journal must not stall Redis. Before, one script replayed
     * the whole journal (about 6 s at a million adds, past {@code lua-time-limit}), and every other
     * client got BUSY. SLOWLOG records how long each command held the server.
     */
    @Test
    void replayingABigJournalHoldsRedisForMillisecondsPerCall() {
        RedisBloomFilter filter = filter(FilterGeometry.of(500_000, 0.01));
        filter.load(LongStream.rangeClosed(1, 1_000).boxed());
        List<Long> added = LongStream.rangeClosed(1_000_001, 1_200_000).boxed().toList();
        for (List<Long> batch : batches(added, 10_000)) {
            filter.addAll(batch);
        }
        RedisCommands<byte[], byte[]> connection = REDIS.client().commands();
        connection.configSet("slowlog-log-slower-than", "0");
        connection.configSet("slowlog-max-len", "100000");
        connection.slowlogReset();
        try {
            LoadReport report = filter.load(LongStream.rangeClosed(1, 1_000).boxed());
            assertThat(report.replayedAdds()).isEqualTo(added.size());

            long[] scriptMicros = slowlogMicros(connection, "EVAL");
            long p99 = scriptMicros[(int) (scriptMicros.length * 0.99)];
            long longest = scriptMicros[scriptMicros.length - 1];
            log.info("Replaying {} adds in {} script calls: p99 {} µs, longest {} µs", added.size(),
                    scriptMicros.length, p99, longest);
            // A few milliseconds per call; the longest also counts a step the OS descheduled on a busy machine.
            assertThat(p99).as("µs the 99th percentile script call held Redis").isLessThan(5_000);
            assertThat(longest).as("µs the longest script call held Redis").isLessThan(50_000);
        }
        finally {
            connection.configSet("slowlog-log-slower-than", "10000");
        }
        for (List<Long> batch : batches(added, 10_000)) {
            assertThat(filter.checkAll(batch)).containsOnly(Membership.PRESENT);
        }
        assertThat(filter.checkAll(absentKeys(filter, 100))).containsOnly(Membership.ABSENT);
    }

    /** The durations (µs, ascending) SLOWLOG holds for commands whose name starts with {@code prefix}. */
    @SuppressWarnings("unchecked")
    private static long[] slowlogMicros(RedisCommands<byte[], byte[]> connection, String prefix) {
        List<Object> entries = connection.slowlogGet(-1);
        assertThat(entries).as("SLOWLOG entries").isNotEmpty();
        long[] micros = entries.stream().map(entry -> (List<Object>) entry)
                .filter(fields -> new String((byte[]) ((List<Object>) fields.get(3)).get(0), UTF_8)
                        .toUpperCase(Locale.ROOT).startsWith(prefix))
                .mapToLong(fields -> (Long) fields.get(2)).sorted().toArray();
        assertThat(micros).as("SLOWLOG entries of %s", prefix).isNotEmpty();
        return micros;
    }

    /**
     * Issue 11, path 2: Redis restarts from a snapshot older than the last adds (or fails over to
     * a replica that lagged). The bitmap and its ready marker come back without those adds; once
     * an instance that saw their count looks (the starter does every few seconds), no instance
     * blocks them, and a reload brings the filter back to blocking.
     */
    @Test
    void keysAddedAfterTheSnapshotRedisCameBackFromAreNotBlockedOnceTheRewindIsSeen() {
        try (RedisServer rewinding = RedisServer.start()) {
            LettuceClients redisClient = connect(rewinding.port());
            try {
                BitmapStore rewindingStore = LettuceBitmapStore.create(redisClient, Duration.ofSeconds(10));
                AtomicInteger notReady = new AtomicInteger();
                RedisBloomFilter adder = RedisBloomFilter.builder(REDIS.filterName(), FilterGeometry.of(10_000, 0.01),
                        rewindingStore).checkTimeout(GENEROUS_CHECK_TIMEOUT)
                        .onNotReady(filter -> notReady.incrementAndGet()).build();
                RedisBloomFilter other = RedisBloomFilter.builder(REDIS.filterName(), FilterGeometry.of(10_000, 0.01),
                        rewindingStore).checkTimeout(GENEROUS_CHECK_TIMEOUT).build();
                adder.load(LongStream.rangeClosed(1, 1_000).boxed());
                List<Object> beforeSnapshot = absentKeys(adder, 20);
                adder.addAll(beforeSnapshot);
                assertThat(other.verifyNotBehind()).isFalse();
                RedisCommands<byte[], byte[]> connection = redisClient.commands();
                connection.save();
                List<Object> afterSnapshot = absentKeys(adder, 50);
                adder.addAll(afterSnapshot);

                rewinding.restart(); // from the snapshot: the last 50 adds are gone
                // Other instances add more than was lost before the adder looks: a count shared by all
                // would have caught up, and the rewind gone unseen.
                untilRedisAnswers(() -> {
                    other.addAll(LongStream.rangeClosed(2_001, 2_100).boxed().toList());
                    return null;
                });

                assertThat(untilRedisAnswers(adder::verifyNotBehind)).as("the adder saw a higher count").isTrue();
                assertThat(untilRedisAnswers(other::verifyNotBehind)).as("no instance saw a count above the"
                        + " snapshot's, nothing more to notice").isFalse();
                assertThat(notReady).hasValue(1);
                for (RedisBloomFilter instance : List.of(adder, other)) {
                    assertThat(instance.checkAll(afterSnapshot)).doesNotContain(Membership.ABSENT);
                    assertThat(instance.checkAll(beforeSnapshot)).doesNotContain(Membership.ABSENT);
                }

                // The reload the not-ready listener schedules: the database has every row.
                adder.load(Stream.of(LongStream.rangeClosed(1, 1_000).boxed(), beforeSnapshot.stream(),
                        afterSnapshot.stream(), LongStream.rangeClosed(2_001, 2_100).boxed()).flatMap(keys -> keys));
                assertThat(adder.verifyNotBehind()).isFalse();
                assertThat(other.checkAll(afterSnapshot)).containsOnly(Membership.PRESENT);
                assertThat(other.checkAll(absentKeys(other, 100))).containsOnly(Membership.ABSENT);
            }
            finally {
                redisClient.close();
            }
        }
    }

    /**
     * Issue 11, path 2, when the instance that made the lost adds is gone before Redis comes back
     * (redeployed, scaled down, or on the host that crashed with Redis): the others saw its count
     * grow, and see it go back. Once one instance has made the filter not ready, the others do
     * not clear it again: that would undo the reload it started.
     */
    @Test
    void aRewindIsSeenByTheOthersWhenTheInstanceWhoseAddsWereLostIsGone() {
        try (RedisServer rewinding = RedisServer.start()) {
            LettuceClients redisClient = connect(rewinding.port());
            try {
                BitmapStore rewindingStore = LettuceBitmapStore.create(redisClient, Duration.ofSeconds(10));
                AtomicInteger watcherNotReady = new AtomicInteger();
                AtomicInteger latecomerNotReady = new AtomicInteger();
                RedisBloomFilter adder = RedisBloomFilter.builder(REDIS.filterName(), FilterGeometry.of(10_000, 0.01),
                        rewindingStore).checkTimeout(GENEROUS_CHECK_TIMEOUT).build();
                RedisBloomFilter watcher = RedisBloomFilter.builder(REDIS.filterName(), FilterGeometry.of(10_000, 0.01),
                        rewindingStore).checkTimeout(GENEROUS_CHECK_TIMEOUT)
                        .onNotReady(filter -> watcherNotReady.incrementAndGet()).build();
                RedisBloomFilter latecomer = RedisBloomFilter.builder(REDIS.filterName(), FilterGeometry.of(10_000, 0.01),
                        rewindingStore).checkTimeout(GENEROUS_CHECK_TIMEOUT)
                        .onNotReady(filter -> latecomerNotReady.incrementAndGet()).build();
                adder.load(LongStream.rangeClosed(1, 1_000).boxed());
                adder.addAll(absentKeys(adder, 20));
                RedisCommands<byte[], byte[]> connection = redisClient.commands();
                connection.save();
                List<Object> afterSnapshot = absentKeys(adder, 50);
                adder.addAll(afterSnapshot);
                assertThat(watcher.verifyNotBehind()).isFalse();
                assertThat(latecomer.verifyNotBehind()).isFalse();
                adder.close(); // gone: it never looks again

                rewinding.restart(); // from the snapshot: the last 50 adds are gone

                assertThat(untilRedisAnswers(watcher::verifyNotBehind)).as("the watcher saw the adder's count"
                        + " go back").isTrue();
                assertThat(watcherNotReady).hasValue(1);
                assertThat(untilRedisAnswers(latecomer::verifyNotBehind)).as("the watcher already made the filter"
                        + " not ready").isFalse();
                assertThat(latecomerNotReady).hasValue(0);
                for (RedisBloomFilter instance : List.of(watcher, latecomer)) {
                    assertThat(instance.checkAll(afterSnapshot)).doesNotContain(Membership.ABSENT);
                }

                // The reload the watcher's not-ready listener schedules: the database has every row.
                watcher.load(Stream.concat(LongStream.rangeClosed(1, 1_000).boxed(), afterSnapshot.stream()));
                assertThat(latecomer.verifyNotBehind()).isFalse();
                for (RedisBloomFilter instance : List.of(watcher, latecomer)) {
                    assertThat(instance.checkAll(afterSnapshot)).containsOnly(Membership.PRESENT);
                    assertThat(instance.checkAll(absentKeys(instance, 100))).as("blocks again once reloaded")
                            .containsOnly(Membership.ABSENT);
                }
                watcher.close();
                latecomer.close();
            }
            finally {
                redisClient.close();
            }
        }
    }

    /**
     * Issue 11, path 2 during a rolling change of the filter's size: the new instance answers
     * from the old generation, which the old instance filled. Redis comes back without the old
     * instance's last adds, and the old instance is gone by then: noticing the loss in the new
     * generation must make the generation that answers not ready too.
     */
    @Test
    void aRewindDuringARollingChangeMakesTheGenerationThatAnswersNotReady() throws InterruptedException {
        Duration retention = Duration.ofMillis(300);
        try (RedisServer rewinding = RedisServer.start()) {
            LettuceClients redisClient = connect(rewinding.port());
            try {
                BitmapStore rewindingStore = LettuceBitmapStore.create(redisClient, Duration.ofSeconds(10));
                RedisBloomFilter old = RedisBloomFilter.builder(REDIS.filterName(), FilterGeometry.of(10_000, 0.01),
                        rewindingStore).checkTimeout(GENEROUS_CHECK_TIMEOUT).journalRetention(retention)
                        .rollout(Duration.ofMillis(100), Duration.ofSeconds(2)).build();
                old.generations().orElseThrow().heartbeat();
                old.load(LongStream.rangeClosed(1, 1_000).boxed());
                RedisBloomFilter upgraded = RedisBloomFilter.builder(REDIS.filterName(), FilterGeometry.of(20_000, 0.01),
                        rewindingStore).checkTimeout(GENEROUS_CHECK_TIMEOUT).journalRetention(retention)
                        .rollout(Duration.ofMillis(100), Duration.ofSeconds(2)).build();
                upgraded.generations().orElseThrow().heartbeat();
                old.generations().orElseThrow().heartbeat(); // the old instance writes to both from now on
                old.generations().orElseThrow().heartbeat(); // and says so in the registry
                List<Object> absent = absentKeys(old, 100);
                assertThat(upgraded.checkAll(absent)).as("answered by the old generation").containsOnly(Membership.ABSENT);
                RedisCommands<byte[], byte[]> connection = redisClient.commands();
                connection.save();
                List<Object> afterSnapshot = absentKeys(old, 50);
                old.addAll(afterSnapshot);
                assertThat(upgraded.verifyNotBehind()).isFalse();
                old.close(); // gone: it never looks again

                rewinding.restart(); // from the snapshot: the last 50 adds are gone from both generations

                assertThat(untilRedisAnswers(upgraded::verifyNotBehind)).isTrue();
                assertThat(upgraded.checkAll(afterSnapshot)).doesNotContain(Membership.ABSENT);

                // The old instance is gone: once the new generation covers every writer it is loaded and answers.
                Thread.sleep(retention.toMillis() + 100);
                untilRedisAnswers(() -> {
                    upgraded.generations().orElseThrow().heartbeat();
                    return null;
                });
                assertThat(upgraded.generations().orElseThrow().ownCoverable()).isTrue();
                upgraded.load(Stream.concat(LongStream.rangeClosed(1, 1_000).boxed(), afterSnapshot.stream()));
                assertThat(upgraded.checkAll(afterSnapshot)).containsOnly(Membership.PRESENT);
                assertThat(upgraded.checkAll(absentKeys(upgraded, 100))).as("blocks again once reloaded")
                        .containsOnly(Membership.ABSENT);
                upgraded.close();
            }
            finally {
                redisClient.close();
            }
        }
    }

    /** Calls {@code call} until Redis answers it (a restarted server takes a moment to reconnect to). */
    private static <T> T untilRedisAnswers(Supplier<T> call) {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (true) {
            try {
                return call.get();
            }
            catch (BitmapStoreException ex) {
                if (System.nanoTime() > deadline) {
                    throw ex;
                }
                sleep(100);
            }
        }
    }

    @Test
    void addsEveryNonNullKeyOfABatch() {
        RedisBloomFilter filter = filter(FilterGeometry.of(1_000, 0.01));
        filter.load(Stream.of("seed"));
        List<Object> keys = absentKeys(filter, 3);
        List<Object> withNulls = Arrays.asList(null, keys.get(0), null, keys.get(1), keys.get(2), null);

        filter.addAll(withNulls);

        assertThat(filter.checkAll(keys)).containsOnly(Membership.PRESENT);
    }

    @Test
    void addsABatchLargerThanOneRedisCommandCarries() {
        RedisBloomFilter filter = filter(FilterGeometry.of(100_000, 0.01));
        filter.load(Stream.of("seed"));
        // 10,000 keys x 7 hashes = 70,000 bit writes: more than one BITFIELD command's worth.
        List<String> keys = LongStream.range(0, 10_000).mapToObj(i -> "bulk-" + i).toList();
        assertThat(filter.checkAll(keys)).filteredOn(answer -> answer == Membership.ABSENT)
                .hasSizeGreaterThan(9_900);

        filter.addAll(keys);

        assertThat(filter.checkAll(keys)).containsOnly(Membership.PRESENT);
    }

    @Test
    void leavesTheLiveFilterAsItWasWhenALoadFails() {
        RedisBloomFilter filter = filter(FilterGeometry.of(1_000, 0.01));
        filter.load(Stream.of("alice"));
        Object neverAdded = absentKey(filter);
        Iterator<Object> failing = Stream.<Object>of(neverAdded, "bob")
                .map(key -> {
                    if (key.equals("bob")) {
                        throw new IllegalStateException("warmup query failed");
                    }
                    return key;
                })
                .iterator();

        assertThatIllegalStateException().isThrownBy(() -> filter.load(failing))
                .withMessage("warmup query failed");

        assertThat(filter.isLoading()).isFalse();
        assertThat(filter.check("alice")).isEqualTo(Membership.PRESENT);
        assertThat(filter.check(neverAdded)).isEqualTo(Membership.ABSENT);
        RedisCommands<byte[], byte[]> connection = REDIS.client().commands();
        assertThat(connection.keys("*staging*".getBytes(UTF_8))).isEmpty();
        filter.load(Stream.of("bob"));
        assertThat(filter.check("bob")).isEqualTo(Membership.PRESENT);
    }

    @Test
    void answersEachKeyOfABatchInOrderWithNullsPresent() {
        RedisBloomFilter filter = filter(FilterGeometry.of(1_000, 0.01));
        filter.load(Stream.of("alice", 7L));
        List<Object> absent = absentKeys(filter, 2);

        List<Membership> answers = filter.checkAll(Arrays.asList(
                "alice", null, absent.get(0), "7", null, absent.get(1), 7));

        assertThat(answers).containsExactly(Membership.PRESENT, Membership.PRESENT, Membership.ABSENT,
                Membership.PRESENT, Membership.PRESENT, Membership.ABSENT, Membership.PRESENT);
        assertThat(filter.checkAll(List.of())).isEmpty();
        assertThat(filter.checkAll(Arrays.asList(null, null))).containsExactly(Membership.PRESENT, Membership.PRESENT);
    }

    @Test
    void keepsEachGeometryInItsOwnKey() {
        RedisBloomFilter small = filter(FilterGeometry.of(1_000, 0.01));
        RedisBloomFilter resized = REDIS.filter(FilterGeometry.of(5_000, 0.01))
                .build();
        small.load(Stream.of("alice", "bob"));

        assertThat(resized.keys().live()).isNotEqualTo(small.keys().live());
        assertThat(resized.check("alice")).isEqualTo(Membership.NOT_READY);
        assertThat(resized.check("bob")).isEqualTo(Membership.NOT_READY);

        resized.load(Stream.of("carol"));

        assertThat(resized.check("carol")).isEqualTo(Membership.PRESENT);
        assertThat(small.check("alice")).isEqualTo(Membership.PRESENT);
        assertThat(small.check("carol")).as("the small filter never saw carol").isEqualTo(Membership.ABSENT);
        assertThat(REDIS.store().length(small.keys().live())).isEqualTo(small.geometry().byteSize());
        assertThat(REDIS.store().length(resized.keys().live())).isEqualTo(resized.geometry().byteSize());
    }

    @Test
    void keepsAddsMadeWhileALoadRunsAndNeverBlocksDuringTheSwap() throws Exception {
        RedisBloomFilter filter = filter(FilterGeometry.of(200_000, 0.01));
        int sourceSize = 100_000;
        filter.load(LongStream.rangeClosed(1, sourceSize).boxed());
        int adds = 2_000;
        List<String> added = new ArrayList<>(adds);
        for (int i = 0; i < adds; i++) {
            added.add("added-while-loading-" + i);
        }
        assertThat(filter.checkAll(added)).as("precondition: most are absent before the adds")
                .filteredOn(answer -> answer == Membership.ABSENT).hasSizeGreaterThan(adds * 9 / 10);

        CountDownLatch loadStarted = new CountDownLatch(1);
        CountDownLatch halfAdded = new CountDownLatch(adds / 2);
        Queue<String> completedAdds = new ConcurrentLinkedQueue<>();
        Queue<String> blocked = new ConcurrentLinkedQueue<>();
        AtomicBoolean loadRunning = new AtomicBoolean(true);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<?> adder = pool.submit(() -> {
                loadStarted.await();
                for (String key : added) {
                    filter.add(key);
                    completedAdds.add(key);
                    halfAdded.countDown();
                }
                return null;
            });
            Future<?> checker = pool.submit(() -> {
                loadStarted.await();
                long round = 0;
                while (loadRunning.get() || !adder.isDone()) {
                    List<String> done = List.copyOf(completedAdds);
                    List<Object> probe = new ArrayList<>(done.subList(Math.max(0, done.size() - 200), done.size()));
                    probe.add(1 + round * 7919 % sourceSize);
                    List<Membership> answers = filter.checkAll(probe);
                    for (int i = 0; i < probe.size(); i++) {
                        if (answers.get(i) == Membership.ABSENT) {
                            blocked.add(String.valueOf(probe.get(i)));
                        }
                    }
                    round++;
                }
                return null;
            });

            LoadReport report;
            try {
                report = filter.load(slowSource(sourceSize, loadStarted, halfAdded));
            }
            finally {
                loadRunning.set(false);
            }
            adder.get(60, TimeUnit.SECONDS);
            checker.get(60, TimeUnit.SECONDS);

            assertThat(report.keys()).isEqualTo(sourceSize);
            assertThat(report.replayedAdds()).as("adds replayed onto the new bitmap").isPositive();
            assertThat(blocked).as("keys answered ABSENT while the load ran").isEmpty();
            assertThat(filter.checkAll(added)).containsOnly(Membership.PRESENT);
            List<Long> source = LongStream.rangeClosed(1, sourceSize).boxed().toList();
            for (List<Long> batch : batches(source, 1_000)) {
                assertThat(filter.checkAll(batch)).containsOnly(Membership.PRESENT);
            }
        }
        finally {
            pool.shutdownNow();
        }
    }

    @Test
    void refusesASecondLoadOfTheSameFilterWhileOneRuns() throws Exception {
        RedisBloomFilter filter = filter(FilterGeometry.of(1_000, 0.01));
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Iterator<Object> blockingSource = new Iterator<>() {
            private boolean given;

            @Override
            public boolean hasNext() {
                if (!given) {
                    return true;
                }
                started.countDown();
                await(release);
                return false;
            }

            @Override
            public Object next() {
                given = true;
                return "first";
            }
        };
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<LoadReport> first = pool.submit(() -> filter.load(blockingSource));
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

            assertThat(filter.isLoading()).isTrue();
            assertThatIllegalStateException()
                    .isThrownBy(() -> filter.load(Stream.of("second")))
                    .withMessageContaining(REDIS.filterName());

            release.countDown();
            assertThat(first.get(10, TimeUnit.SECONDS).keys()).isEqualTo(1);
            assertThat(filter.isLoading()).isFalse();
            assertThat(filter.check("first")).isEqualTo(Membership.PRESENT);
        }
        finally {
            release.countDown();
            pool.shutdownNow();
        }
    }

    @Test
    void uploadsTheWholeBitmapPersistentAndLeavesNoStagingKey() {
        RedisBloomFilter filter = filter(FilterGeometry.of(200_000, 0.001));

        LoadReport report = filter.load(Stream.of("alice", null, 42L, null, "bob"));

        String live = filter.keys().live();
        RedisCommands<byte[], byte[]> connection = REDIS.client().commands();
        byte[] key = live.getBytes(UTF_8);
        assertThat(connection.strlen(key)).isEqualTo(filter.geometry().byteSize());
        assertThat(connection.ttl(key)).as("no expiry on the live filter").isEqualTo(-1L);
        assertThat(connection.keys("*staging*".getBytes(UTF_8))).isEmpty();
        assertThat(connection.getbit(key, filter.geometry().markerOffset())).isEqualTo(1L);
        assertThat(live).isEqualTo("bg:v1:{" + REDIS.filterName() + ":" + filter.geometry().id() + ":0}");
        assertThat(report.keys()).as("nulls are skipped").isEqualTo(3);
        assertThat(report.filter()).isEqualTo(REDIS.filterName());
        assertThat(filter.lastLoad()).contains(report);
    }

    @Test
    void answersUnavailableWithinTheCheckTimeoutWhenRedisIsDown() {
        RedisServer doomed = RedisServer.start();
        LettuceClients doomedClient = connect(doomed.port());
        try {
            BitmapStore doomedStore = LettuceBitmapStore.create(doomedClient, Duration.ofMillis(500));
            RedisBloomFilter filter = RedisBloomFilter.builder(REDIS.filterName(), FilterGeometry.of(1_000, 0.01), doomedStore)
                    .checkTimeout(Duration.ofMillis(50))
                    .build();
            filter.load(Stream.of("alice"));
            Object neverAdded = absentKey(filter);
            assertThat(filter.check("alice")).isEqualTo(Membership.PRESENT);

            doomed.stop();

            for (Object key : List.of("alice", neverAdded, 42L)) {
                long started = System.nanoTime();
                Membership answer = filter.check(key);
                Duration took = Duration.ofNanos(System.nanoTime() - started);
                assertThat(answer).isEqualTo(Membership.UNAVAILABLE);
                assertThat(took).isLessThan(Duration.ofSeconds(2));
            }
            long started = System.nanoTime();
            assertThat(filter.checkAll(Arrays.asList("alice", null, neverAdded)))
                    .containsExactly(Membership.UNAVAILABLE, Membership.PRESENT, Membership.UNAVAILABLE);
            assertThat(filter.mightContain(neverAdded)).isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(4));
            assertThatThrownBy(() -> filter.add("bob")).isInstanceOf(BitmapStoreException.class);

            doomed.restart();

            Membership afterRestart = awaitDecidedOrNotReady(filter, neverAdded, Duration.ofSeconds(30));
            assertThat(afterRestart).as("an empty server after a restart").isEqualTo(Membership.NOT_READY);
            assertThat(filter.check("alice")).isEqualTo(Membership.NOT_READY);
        }
        finally {
            doomedClient.close();
            doomed.close();
        }
    }

    @Test
    void asynchronousChecksAndAddsAnswerAsTheBlockingOnesDo() {
        RedisBloomFilter filter = filter(FilterGeometry.of(10_000, 0.01));
        assertThat(filter.checkAsync("anything").join()).isEqualTo(Membership.NOT_READY);
        filter.load(LongStream.rangeClosed(1, 5_000).boxed());
        List<Object> candidates = absentKeys(filter, 12);

        for (long id = 1; id <= 5_000; id += 7) {
            assertThat(filter.checkAsync(id).join()).as("id %s", id).isEqualTo(Membership.PRESENT);
        }
        assertThat(filter.checkAsync(candidates.get(0)).join()).isEqualTo(Membership.ABSENT);
        assertThat(filter.checkAllAsync(Arrays.asList(1L, null, candidates.get(0), 4_999L)).join())
                .containsExactly(Membership.PRESENT, Membership.PRESENT, Membership.ABSENT, Membership.PRESENT);

        filter.addAllAsync(candidates.subList(0, 10)).join();

        assertThat(filter.checkAll(candidates.subList(0, 10))).containsOnly(Membership.PRESENT);
        assertThat(filter.checkAsync(candidates.get(11)).join()).isEqualTo(Membership.ABSENT);
        filter.load(LongStream.rangeClosed(1, 5_000).boxed());
        assertThat(filter.checkAllAsync(candidates.subList(0, 10)).join())
                .as("asynchronous adds are journaled like blocking ones: the reload replays them")
                .containsOnly(Membership.PRESENT);
    }

    @Test
    void batchesLargerThanTheMaxBatchSizeAnswerInOrderAsOneBatchWould() {
        RedisBloomFilter whole = filter(FilterGeometry.withShards(10_000, 0.01, 3));
        whole.load(LongStream.rangeClosed(1, 500).boxed());
        RedisBloomFilter chunked = REDIS.filter(FilterGeometry.withShards(10_000, 0.01, 3)).maxBatchSize(4).build();
        List<Object> absent = absentKeys(whole, 30);
        List<Object> batch = new ArrayList<>();
        for (int i = 0; i < absent.size(); i++) {
            batch.add(absent.get(i));
            batch.add(i % 5 == 0 ? null : (long) (i * 13 + 1));
        }
        List<Membership> expected = whole.checkAll(batch);
        assertThat(expected).contains(Membership.ABSENT, Membership.PRESENT);

        assertThat(chunked.checkAll(batch)).isEqualTo(expected);
        assertThat(chunked.checkAllAsync(batch).join()).isEqualTo(expected);

        chunked.addAll(absent.subList(0, 15));
        chunked.addAllAsync(absent.subList(15, 30)).join();
        assertThat(whole.checkAll(absent)).as("every chunk of both adds landed").containsOnly(Membership.PRESENT);
        assertThatThrownBy(() -> RedisBloomFilter.builder(REDIS.filterName(), FilterGeometry.of(10, 0.01), REDIS.store()).maxBatchSize(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max batch size (0)");
    }

    @Test
    void asynchronousChecksAnswerUnavailableAndAddsFailWithinTheTimeoutWhenRedisIsDown() {
        RedisServer doomed = RedisServer.start();
        LettuceClients doomedClient = connect(doomed.port());
        try {
            BitmapStore doomedStore = LettuceBitmapStore.create(doomedClient, Duration.ofMillis(500));
            RedisBloomFilter filter = RedisBloomFilter.builder(REDIS.filterName(), FilterGeometry.of(1_000, 0.01), doomedStore)
                    .checkTimeout(Duration.ofMillis(50))
                    .build();
            filter.load(Stream.of("alice"));
            assertThat(filter.checkAsync("alice").join()).isEqualTo(Membership.PRESENT);

            doomed.stop();

            long started = System.nanoTime();
            assertThat(filter.checkAsync("alice").join()).isEqualTo(Membership.UNAVAILABLE);
            assertThat(filter.checkAllAsync(Arrays.asList("alice", null)).join())
                    .containsExactly(Membership.UNAVAILABLE, Membership.PRESENT);
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
            assertThatThrownBy(() -> filter.addAllAsync(List.of("bob")).join())
                    .hasCauseInstanceOf(BitmapStoreException.class);
        }
        finally {
            doomedClient.close();
            doomed.close();
        }
    }

    @Test
    void aLoadOfMoreKeysThanExpectedWarnsOnceAndNotOnEachCheck() {
        ch.qos.logback.classic.Logger logger = (ch.qos.logback.classic.Logger) LoggerFactory
                .getLogger(RedisBloomFilter.class);
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> appender =
                new ch.qos.logback.core.read.ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        try {
            RedisBloomFilter crowded = filter(FilterGeometry.of(1_000, 0.01));
            crowded.load(LongStream.rangeClosed(1, 3_000).boxed());
            for (long key = 1; key <= 100; key++) {
                assertThat(crowded.check(key)).isEqualTo(Membership.PRESENT);
            }
            List<String> warnings = appender.list.stream()
                    .filter(event -> event.getLevel() == ch.qos.logback.classic.Level.WARN)
                    .map(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage).toList();
            assertThat(warnings).hasSize(1);
            assertThat(warnings.get(0)).contains("'" + REDIS.filterName() + "'", "3000", "expected-insertions 1000");

            appender.list.clear();
            RedisBloomFilter roomy = filter(FilterGeometry.of(10_000, 0.01));
            roomy.load(LongStream.rangeClosed(1, 3_000).boxed());
            assertThat(appender.list).noneMatch(event -> event.getLevel() == ch.qos.logback.classic.Level.WARN);
        }
        finally {
            logger.detachAppender(appender);
        }
    }

    private RedisBloomFilter filter(FilterGeometry geometry) {
        return REDIS.filter(geometry).build();
    }

    private static LettuceClients connect(int port) {
        return LettuceClients.standalone(port);
    }

    private static void flushAll() {
        REDIS.client().commands().flushall();
    }

    /** Warmup queries return ids as Long, Integer, String or NUMERIC columns; all must hash alike. */
    private static Object asMixedType(long id) {
        return switch ((int) (id % 4)) {
            case 0 -> id;
            case 1 -> (int) id;
            case 2 -> Long.toString(id);
            default -> new BigDecimal(id).setScale(2);
        };
    }

    /** The first key of "absent-0", "absent-1", ... that the filter answers ABSENT for. */
    private static Object absentKey(RedisBloomFilter filter) {
        return absentKeys(filter, 1).get(0);
    }

    private static List<Object> absentKeys(RedisBloomFilter filter, int count) {
        List<Object> candidates = LongStream.range(0, 1_000).mapToObj(i -> (Object) ("absent-" + i)).toList();
        List<Membership> answers = filter.checkAll(candidates);
        return AbsentKeys.first(count, IntStream.range(0, candidates.size()).boxed(), i -> answers.get(i) == Membership.ABSENT)
                .stream().map(candidates::get).toList();
    }

    /**
     * Keys 1..size, pausing every 10,000 keys so that the load takes a while, and holding the
     * last key back until half the concurrent adds are in.
     */
    private static Iterator<Long> slowSource(int size, CountDownLatch started, CountDownLatch halfAdded) {
        return new Iterator<>() {
            private long next = 1;

            @Override
            public boolean hasNext() {
                return next <= size;
            }

            @Override
            public Long next() {
                if (next > size) {
                    throw new NoSuchElementException();
                }
                if (next == 1) {
                    started.countDown();
                }
                if (next % 10_000 == 0) {
                    sleep(25);
                }
                if (next == size) {
                    await(halfAdded);
                }
                return next++;
            }
        };
    }

    private static Membership awaitDecidedOrNotReady(RedisBloomFilter filter, Object key, Duration limit) {
        return Await.until("an answer for " + key + " other than UNAVAILABLE", limit, () -> filter.check(key),
                answer -> answer != Membership.UNAVAILABLE);
    }

    private static <T> List<List<T>> batches(List<T> all, int size) {
        return LongStream.range(0, (all.size() + size - 1) / size)
                .mapToObj(i -> all.subList((int) i * size, Math.min(all.size(), (int) (i + 1) * size)))
                .collect(Collectors.toList());
    }

    private static void await(CountDownLatch latch) {
        Await.latch(latch, Duration.ofSeconds(30));
    }

    private static void sleep(long millis) {
        Await.sleep(millis);
    }
}
