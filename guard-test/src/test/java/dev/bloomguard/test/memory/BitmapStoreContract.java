package dev.bloomguard.test.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.google.common.hash.BloomFilter;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.IncompleteLoadException;
import dev.bloomguard.core.LoadReport;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.misses.RememberedMisses;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.BitmapStoreException;
import dev.bloomguard.core.redis.PackedOffsets;
import dev.bloomguard.testsupport.AbsentKeys;
import dev.bloomguard.testsupport.Await;
import dev.bloomguard.testsupport.GuavaFilters;

/**
 * What the filter does over a store, as one suite that every store must pass: the in-memory store
 * ({@link InMemoryBitmapStoreContractTests}) and the Redis store on a real redis-server
 * ({@link RedisBitmapStoreContractTests}). An application's tests that use the in-memory store
 * then test the filter, not a simplification of it. Time that Redis keeps (TTLs, the journal's
 * retention) passes through {@link #advance}: the in-memory store's clock is moved, Redis is waited for.
 */
abstract class BitmapStoreContract {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final String LOOKUP = "Users#find";
    private static final String INSTANCES = "registry:{users}:instances";
    private static final String GENERATIONS = "registry:{users}:generations";
    private static final String INVALIDATED = "registry:{users}:invalidated";
    private static final String META = "users:{0}:meta";
    /** A load's mark as the journal holds it: 12 bytes. */
    private static final byte[] MARK = PackedOffsets.pack(new long[] { 7, 0, 0 }, 0, 3);

    private BitmapStore store;
    private final ScheduledExecutorService renewals = Executors.newSingleThreadScheduledExecutor();
    private final List<RedisBloomFilter> filters = new ArrayList<>();
    private final List<BitmapStore.Subscription> subscriptions = new ArrayList<>();

    /** A store holding nothing of an earlier test. */
    abstract BitmapStore newStore();

    /** Lets {@code time} pass for the store's TTLs. */
    abstract void advance(Duration time);

    /** How many subscribers {@code channel} has on the store. */
    abstract long subscribers(String channel);

    /** Releases what {@link #newStore} opened. */
    abstract void closeStore(BitmapStore store);

    @BeforeEach
    void openStore() {
        store = newStore();
    }

    /** The store of the running test. */
    BitmapStore currentStore() {
        return store;
    }

    @AfterEach
    void close() {
        filters.forEach(RedisBloomFilter::close);
        subscriptions.forEach(BitmapStore.Subscription::close);
        renewals.shutdownNow();
        closeStore(store);
    }

    @Test
    void blocksNothingLoadedAndMostKeysNeverAdded() {
        RedisBloomFilter filter = filter("users", FilterGeometry.of(20_000, 0.01));
        LoadReport report = filter.load(LongStream.rangeClosed(1, 20_000).boxed());

        assertThat(report.keys()).isEqualTo(20_000);
        assertThat(filter.checkAll(LongStream.rangeClosed(1, 20_000).boxed().toList())).containsOnly(Membership.PRESENT);
        assertThat(filter.check("42")).isEqualTo(Membership.PRESENT);
        assertThat(filter.checkAsync(42).join()).isEqualTo(Membership.PRESENT);
        long blocked = LongStream.rangeClosed(1_000_001, 1_002_000).filter(id -> filter.check(id) == Membership.ABSENT)
                .count();
        assertThat(blocked).as("keys never added that are blocked, of 2,000").isGreaterThan(1_940);
    }

    /** The same keys set the same bits as Guava's own filter, and the answers follow those bits exactly. */
    @Test
    void setsTheBitsGuavaSetsAndAnswersAsGuavaDoes() {
        FilterGeometry geometry = FilterGeometry.of(10_000, 0.01);
        RedisBloomFilter filter = filter("guava", geometry);
        List<String> keys = IntStream.range(0, 5_000).mapToObj(i -> "user-" + i).toList();
        BloomFilter<CharSequence> guava = GuavaFilters.create(10_000, 0.01);
        keys.forEach(guava::put);

        filter.load(keys.stream());

        byte[] live = store.getRange(filter.keys().live(), 0, -1);
        List<Long> liveBits = new ArrayList<>();
        for (long bit = 0; bit < geometry.bits(); bit++) {
            if ((live[(int) (bit >>> 3)] & (0x80 >>> (bit & 7))) != 0) {
                liveBits.add(bit);
            }
        }
        assertThat(liveBits).containsExactlyElementsOf(GuavaFilters.serialized(guava).setBits());
        List<String> neverAdded = IntStream.range(0, 5_000).mapToObj(i -> "stranger-" + i).toList();
        List<Membership> answers = filter.checkAll(neverAdded);
        for (int i = 0; i < neverAdded.size(); i++) {
            assertThat(answers.get(i)).as(neverAdded.get(i))
                    .isEqualTo(guava.mightContain(neverAdded.get(i)) ? Membership.PRESENT : Membership.ABSENT);
        }
        assertThat(answers).filteredOn(Membership.ABSENT::equals).hasSizeGreaterThan(4_850);
    }

    @Test
    void answersNotReadyBeforeTheFirstLoadAndOnceTheStoreLosesTheFilter() {
        RedisBloomFilter filter = filter("ready", FilterGeometry.of(1_000, 0.01));
        assertThat(filter.check("alice")).isEqualTo(Membership.NOT_READY);
        assertThat(filter.mightContain("alice")).isTrue();

        filter.load(Stream.of("alice", "bob"));
        Object neverAdded = absentKeys(filter, 1).get(0);
        assertThat(filter.check("alice")).isEqualTo(Membership.PRESENT);
        assertThat(filter.check(neverAdded)).isEqualTo(Membership.ABSENT);

        store.delete(filter.keys().live());
        filter.add("carol");

        assertThat(store.length(filter.keys().live())).as("the add re-created a partial bitmap").isPositive();
        assertThat(filter.checkAll(List.of("alice", "carol", neverAdded))).containsOnly(Membership.NOT_READY);
        filter.load(Stream.of("alice", "bob"));
        assertThat(filter.check("carol")).as("replayed from the journal by the reload").isEqualTo(Membership.PRESENT);
        assertThat(filter.check(neverAdded)).isEqualTo(Membership.ABSENT);
    }

    @Test
    void keepsAnAddThroughTheSwapsOfTheRetentionAndLeavesItToTheSourceAfter() {
        RedisBloomFilter filter = RedisBloomFilter.builder("journal", FilterGeometry.of(1_000, 0.01), store)
                .checkTimeout(TIMEOUT).journalRetention(Duration.ofSeconds(3)).build();
        filters.add(filter);
        filter.load(LongStream.rangeClosed(1, 100).boxed());
        List<Object> candidates = absentKeys(filter, 2);
        Object addedOnly = candidates.get(0);
        Object addedAndInSource = candidates.get(1);
        filter.add(addedOnly);
        filter.addAll(List.of(addedAndInSource));
        assertThat(filter.checkAll(candidates)).containsOnly(Membership.PRESENT);

        for (int load = 1; load <= 2; load++) {
            LoadReport report = filter.load(Stream.concat(LongStream.rangeClosed(1, 100).boxed(), Stream.of(addedAndInSource)));
            assertThat(report.replayedAdds()).as("load %s", load).isEqualTo(2);
            assertThat(filter.check(addedOnly)).as("load %s", load).isEqualTo(Membership.PRESENT);
        }

        advance(Duration.ofMillis(3_300));
        filter.maintainJournal();
        advance(Duration.ofMillis(3_300));
        filter.maintainJournal();
        LoadReport last = filter.load(Stream.concat(LongStream.rangeClosed(1, 100).boxed(), Stream.of(addedAndInSource)));

        assertThat(last.replayedAdds()).isZero();
        assertThat(filter.check(addedAndInSource)).isEqualTo(Membership.PRESENT);
        assertThat(filter.check(addedOnly)).as("the source is the truth after the retention").isEqualTo(Membership.ABSENT);
    }

    @Test
    void anOverflowingJournalDropsNoAdd() {
        RedisBloomFilter filter = RedisBloomFilter.builder("overflow", FilterGeometry.of(1_000, 0.01), store)
                .checkTimeout(TIMEOUT).journalCapacity(3).maxShrink(1).build();
        filters.add(filter);
        filter.load(Stream.of(1L));
        List<Object> added = absentKeys(filter, 5);
        added.forEach(filter::add);
        filter.maintainJournal();

        filter.load(Stream.of(1L));
        filter.load(Stream.of(1L));

        assertThat(filter.checkAll(added)).containsOnly(Membership.PRESENT);
        assertThat(filter.checkAll(absentKeys(filter, 100))).containsOnly(Membership.ABSENT);
    }

    @Test
    void aLoadOvertakenByANewerLoadIsNotSwappedIn() {
        RedisBloomFilter instanceA = filter("fenced", FilterGeometry.of(10_000, 0.01));
        RedisBloomFilter instanceB = filter("fenced", FilterGeometry.of(10_000, 0.01));
        instanceA.load(LongStream.rangeClosed(1, 1_000).boxed());
        try (RedisBloomFilter.PendingLoad stale = instanceA.beginLoad()) {
            instanceB.load(LongStream.rangeClosed(1, 2_000).boxed());

            Throwable failure = catchThrowable(() -> stale.load(LongStream.rangeClosed(1, 1_000).boxed().iterator(),
                    null, null, false));

            assertThat(failure).isInstanceOf(IncompleteLoadException.class).hasMessageContaining("newer load");
        }
        assertThat(instanceA.checkAll(LongStream.rangeClosed(1, 2_000).boxed().toList())).containsOnly(Membership.PRESENT);
        assertThat(instanceA.checkAll(absentKeys(instanceA, 100))).containsOnly(Membership.ABSENT);
    }

    @Test
    void oneHolderHasTheLoadLockUntilItReleasesItOrItExpires() {
        RedisBloomFilter first = instance("locked", "first");
        RedisBloomFilter second = instance("locked", "second");
        Optional<RedisBloomFilter.LoadLease> lease = first.tryLockForLoad(Duration.ofMinutes(1), renewals);
        assertThat(lease).isPresent();
        assertThat(second.tryLockForLoad(Duration.ofMinutes(1), renewals)).isEmpty();
        assertThat(second.lockHolder()).contains("first");
        lease.get().close();
        assertThat(second.lockHolder()).isEmpty();

        assertThat(store.setIfAbsent(second.keys().lock(), "crashed-instance", Duration.ofSeconds(1))).isTrue();
        assertThat(second.tryLockForLoad(Duration.ofMinutes(1), renewals)).isEmpty();
        assertThat(store.deleteIfEquals(second.keys().lock(), "another-token")).as("fenced by its token").isFalse();
        advance(Duration.ofMillis(1_100));
        try (RedisBloomFilter.LoadLease taken = second.tryLockForLoad(Duration.ofMinutes(1), renewals).orElseThrow()) {
            assertThat(first.lockHolder()).contains("second");
        }
    }

    @Test
    void remembersAMissForItsTtlAndForgetsItOnAnAdd() {
        RedisBloomFilter filter = RedisBloomFilter.builder("misses", FilterGeometry.of(10_000, 0.01), store)
                .checkTimeout(TIMEOUT).rememberMisses(new RememberedMisses.Settings(Duration.ofSeconds(2), 1_000, false))
                .build();
        filters.add(filter);
        filter.load(LongStream.rangeClosed(1, 5_000).boxed());

        assertThat(filter.rememberMissAsync(4242L, LOOKUP, System.nanoTime()).join()).isTrue();
        assertThat(filter.isRememberedMissAsync(4242L, LOOKUP).join()).isTrue();
        assertThat(filter.isRememberedMissAsync(4243L, LOOKUP).join()).as("another key").isFalse();
        filter.add(4242L);
        assertThat(filter.isRememberedMissAsync(4242L, LOOKUP).join()).as("forgotten by the add").isFalse();

        assertThat(filter.rememberMissAsync(17L, LOOKUP, System.nanoTime()).join()).isTrue();
        advance(Duration.ofMillis(1_500));
        assertThat(filter.isRememberedMissAsync(17L, LOOKUP).join()).isTrue();
        advance(Duration.ofMillis(600));
        assertThat(filter.isRememberedMissAsync(17L, LOOKUP).join()).as("past its TTL").isFalse();
    }

    /**
     * As Redis: a subscription is registered before its listener hears "subscribed", so a message
     * published from there on reaches it (a mirror clears its pages on "subscribed"; told before
     * registration, it could keep a page read before an add whose message it then missed).
     */
    @Test
    void registersASubscriptionBeforeItsListenerHearsSubscribed() {
        ConcurrentLinkedQueue<String> heard = new ConcurrentLinkedQueue<>();
        BitmapStore.Subscription subscription = store.subscribe("confirm-order", new BitmapStore.ChannelListener() {
            @Override
            public void onMessage(byte[] message) {
                heard.add(new String(message));
            }

            @Override
            public void onSubscribed() {
                // From another thread: a listener must not block the thread that confirms (Lettuce's I/O thread).
                CompletableFuture.runAsync(() -> store.publish("confirm-order", "published on subscribed".getBytes()));
            }
        });

        // A store may confirm more than once (the Redis store tells on the confirmation and on the reply).
        Await.until("the message published while confirming", TIMEOUT, () -> !heard.isEmpty());
        assertThat(heard).containsOnly("published on subscribed");
        assertThat(subscription.isHearing()).isTrue();
        subscription.close();
    }

    @Test
    void deliversEventsToEachSubscriberInOrderOffThePublishersThread() {
        ConcurrentLinkedQueue<String> heard = new ConcurrentLinkedQueue<>();
        Set<Thread> listenerThreads = ConcurrentHashMap.newKeySet();
        List<String> confirmed = new CopyOnWriteArrayList<>();
        BitmapStore.Subscription subscription = store.subscribe("events", new BitmapStore.ChannelListener() {
            @Override
            public void onMessage(byte[] message) {
                heard.add(new String(message));
                listenerThreads.add(Thread.currentThread());
            }

            @Override
            public void onSubscribed() {
                confirmed.add("confirmed");
            }
        });
        assertThat(confirmed).as("confirmed before subscribe returns").isNotEmpty().containsOnly("confirmed");
        assertThat(subscription.isHearing()).isTrue();

        store.publish("other", "elsewhere".getBytes());
        for (int i = 0; i < 100; i++) {
            store.publish("events", ("m" + i).getBytes());
        }
        Await.until("100 messages heard", TIMEOUT, () -> heard.size() == 100);

        assertThat(heard).containsExactlyElementsOf(IntStream.range(0, 100).mapToObj(i -> "m" + i).toList());
        assertThat(listenerThreads).as("heard off the publisher's thread").doesNotContain(Thread.currentThread());
        subscription.close();
        assertThat(subscription.isHearing()).isFalse();
        store.publish("events", "late".getBytes());
        Await.sleep(100);
        assertThat(heard).hasSize(100);
    }

    /** Two filter objects on one store stand for two instances in one JVM: one's remembered miss reaches the other. */
    @Test
    void sharedMissesReachAnotherFilterOnTheStoreThroughItsEvents() {
        RememberedMisses.Settings shared = new RememberedMisses.Settings(Duration.ofMinutes(1), 1_000, true);
        RedisBloomFilter one = RedisBloomFilter.builder("shared", FilterGeometry.of(10_000, 0.01), store)
                .checkTimeout(TIMEOUT).rememberMisses(shared).build();
        RedisBloomFilter two = RedisBloomFilter.builder("shared", FilterGeometry.of(10_000, 0.01), store)
                .checkTimeout(TIMEOUT).rememberMisses(shared).build();
        filters.add(one);
        filters.add(two);
        one.load(LongStream.rangeClosed(1, 5_000).boxed());
        // Both listen before anything is remembered: pub/sub keeps nothing for a late subscriber.
        Await.until("both filters listen", TIMEOUT, () -> subscribers(one.keys().events()) == 2);

        assertThat(one.rememberMissAsync(4242L, LOOKUP, System.nanoTime()).join()).isTrue();
        Await.until("the other filter knows the miss", TIMEOUT, () -> two.isRememberedMissAsync(4242L, LOOKUP).join());
        two.add(4242L);
        assertThat(one.isRememberedMissAsync(4242L, LOOKUP).join()).isFalse();
    }

    // The key primitives (KeyStore): SET NX PX, the *-if-equals scripts, GET, DEL, the hash
    // commands and clear-bit-if-exists.lua, each as Redis answers it.

    @Test
    void setIfAbsentTakesOnlyAFreeKeyAndItsTtlFreesItAgain() {
        assertThat(store.setIfAbsent("turn", "first", Duration.ofSeconds(1))).isTrue();
        assertThat(store.setIfAbsent("kept", "forever", null)).isTrue();

        assertThat(store.setIfAbsent("turn", "second", Duration.ofSeconds(1))).isFalse();
        assertThat(store.setIfAbsent("turn", "second", null)).isFalse();
        assertThat(store.setIfAbsent("kept", "second", Duration.ofSeconds(1))).isFalse();
        assertThat(store.get("turn")).contains("first");
        assertThat(store.get("kept")).contains("forever");

        advance(Duration.ofMillis(1_200));
        assertThat(store.get("turn")).as("past its TTL").isEmpty();
        assertThat(store.get("kept")).as("set without a TTL: never expires").contains("forever");
        assertThat(store.setIfAbsent("turn", "second", null)).as("free again").isTrue();
        assertThat(store.get("turn")).contains("second");
    }

    /** {@code SET NX} asks only whether the key exists: a hash there is as taken as a string. */
    @Test
    void setIfAbsentFindsAKeyOfAnyTypeTaken() {
        store.hashSet("taken", "field", "value");

        assertThat(store.setIfAbsent("taken", "token", null)).isFalse();
        assertThat(store.hashGetAll("taken")).isEqualTo(Map.of("field", "value"));
    }

    /** Redis refuses {@code SET ... PX} of less than one ms ("invalid expire time"): nothing is set. */
    @Test
    void setIfAbsentRefusesATtlUnderAMillisecond() {
        for (Duration ttl : List.of(Duration.ZERO, Duration.ofNanos(999_999), Duration.ofMillis(-1))) {
            assertThat(catchThrowable(() -> store.setIfAbsent("instant", "token", ttl))).as("ttl %s", ttl)
                    .isInstanceOf(BitmapStoreException.class);
        }
        assertThat(store.get("instant")).isEmpty();
        assertThat(store.setIfAbsent("instant", "token", Duration.ofMillis(1))).as("1 ms is a TTL").isTrue();
    }

    /** As the lease of a lock or a turn: renewed only by the holder whose token the key still holds. */
    @Test
    void expireIfEqualsSetsTheExpiryOnlyWhileTheKeyHoldsTheValue() {
        store.setIfAbsent("lease", "holder", Duration.ofSeconds(1));
        store.setIfAbsent("unexpiring", "holder", null);
        store.setIfAbsent("held-by-another", "another", null);
        advance(Duration.ofMillis(300));

        assertThat(store.expireIfEquals("lease", "stranger", Duration.ofMinutes(1))).isFalse();
        assertThat(store.expireIfEquals("lease", "holder", Duration.ofSeconds(2))).isTrue();
        assertThat(store.expireIfEquals("unexpiring", "holder", Duration.ofSeconds(1))).isTrue();
        assertThat(store.expireIfEquals("held-by-another", "holder", Duration.ofMillis(100))).isFalse();
        assertThat(store.expireIfEquals("missing", "holder", Duration.ofSeconds(1))).isFalse();
        assertThat(store.get("missing")).as("not created").isEmpty();

        advance(Duration.ofMillis(900));
        assertThat(store.get("lease")).as("renewed past its first TTL").contains("holder");
        advance(Duration.ofMillis(1_300));
        assertThat(store.get("lease")).as("expired 2 s after the renewal, not 2 s after the first TTL").isEmpty();
        assertThat(store.get("unexpiring")).as("given an expiry by the renewal").isEmpty();
        assertThat(store.get("held-by-another")).as("no expiry given").contains("another");
        assertThat(store.expireIfEquals("lease", "holder", Duration.ofSeconds(1))).as("lost once expired").isFalse();
        assertThat(store.get("lease")).isEmpty();
    }

    /** The script's {@code PEXPIRE} with a TTL of 0 ms or less deletes the key at once. */
    @Test
    void expireIfEqualsWithoutATimeLeftDeletesTheKey() {
        store.setIfAbsent("lease", "holder", null);
        store.setIfAbsent("other-lease", "holder", Duration.ofMinutes(1));

        assertThat(store.expireIfEquals("lease", "stranger", Duration.ZERO)).isFalse();
        assertThat(store.get("lease")).contains("holder");
        assertThat(store.expireIfEquals("lease", "holder", Duration.ZERO)).isTrue();
        assertThat(store.expireIfEquals("other-lease", "holder", Duration.ofMillis(-5))).isTrue();

        assertThat(store.get("lease")).isEmpty();
        assertThat(store.get("other-lease")).isEmpty();
        assertThat(store.setIfAbsent("lease", "next", null)).isTrue();
    }

    @Test
    void deleteIfEqualsDeletesOnlyWhileTheKeyHoldsTheValue() {
        store.setIfAbsent("lock", "holder", null);

        assertThat(store.deleteIfEquals("lock", "stranger")).isFalse();
        assertThat(store.get("lock")).contains("holder");
        assertThat(store.deleteIfEquals("lock", "holder")).isTrue();
        assertThat(store.get("lock")).isEmpty();
        assertThat(store.deleteIfEquals("lock", "holder")).as("already gone").isFalse();

        store.setIfAbsent("lock", "holder", Duration.ofMillis(500));
        advance(Duration.ofMillis(700));
        assertThat(store.deleteIfEquals("lock", "holder")).as("expired: nothing of the holder's left").isFalse();
        assertThat(store.setIfAbsent("lock", "next", null)).isTrue();
        assertThat(store.deleteIfEquals("lock", "holder")).as("another's now").isFalse();
        assertThat(store.get("lock")).contains("next");
    }

    @Test
    void getReadsAStringAndDeleteRemovesKeysOfEveryType() {
        assertThat(store.get("never-set")).isEmpty();
        store.setIfAbsent("text", "h\u00e9llo \u2713", null);
        store.hashSet("hash", "field", "value");
        store.writeBitmap("bits", new byte[] { 1, 2, 3 }, Duration.ofMinutes(1));
        assertThat(store.get("text")).contains("h\u00e9llo \u2713");

        store.delete("text", "hash", "bits", "never-set");

        assertThat(store.get("text")).isEmpty();
        assertThat(store.hashGetAll("hash")).isEmpty();
        assertThat(store.length("bits")).isZero();
        assertThat(store.setIfAbsent("hash", "free", null)).as("the hash is gone, not emptied").isTrue();
    }

    @Test
    void hashFieldsAreSetIncrementedAndDeletedAndTheHashGoesWithItsLastField() {
        assertThat(store.hashGetAll("counts")).isEmpty();
        assertThat(store.hashIncrement("counts", "adds", 5)).as("a missing field counts from 0").isEqualTo(5);
        assertThat(store.hashIncrement("counts", "adds", -7)).isEqualTo(-2);
        store.hashSet("counts", "name", "first");
        store.hashSet("counts", "name", "second");
        store.hashSet("counts", "base", "40");
        assertThat(store.hashIncrement("counts", "base", 2)).isEqualTo(42);
        assertThat(store.hashGetAll("counts")).isEqualTo(Map.of("adds", "-2", "name", "second", "base", "42"));

        store.hashDelete("counts", "no-such-field");
        store.hashDelete("no-such-hash", "field");
        store.hashDelete("counts", "adds");
        store.hashDelete("counts", "name", Duration.ofMillis(500));
        assertThat(store.hashGetAll("counts")).isEqualTo(Map.of("base", "42"));
        assertThat(store.hashGetAll("no-such-hash")).isEmpty();

        store.hashDelete("counts", "base");
        assertThat(store.hashGetAll("counts")).isEmpty();
        assertThat(store.setIfAbsent("counts", "free", null)).as("the hash went with its last field").isTrue();
    }

    /** {@code HINCRBY} on a value that is not an integer, or past a long, fails and changes nothing. */
    @Test
    void hashIncrementRefusesAFieldThatIsNotAnIntegerOrWouldOverflow() {
        store.hashSet("meta", "loadedAt", "not-a-number");
        store.hashSet("meta", "max", Long.toString(Long.MAX_VALUE));

        assertThat(catchThrowable(() -> store.hashIncrement("meta", "loadedAt", 1))).isInstanceOf(BitmapStoreException.class);
        assertThat(catchThrowable(() -> store.hashIncrement("meta", "max", 1))).isInstanceOf(BitmapStoreException.class);
        assertThat(store.hashGetAll("meta")).isEqualTo(Map.of("loadedAt", "not-a-number", "max", Long.toString(Long.MAX_VALUE)));
    }

    /**
     * {@code HINCRBY} reads a field as Redis reads an integer (its {@code string2ll}): {@code 0}, or
     * an optional minus and digits without a leading zero; no plus sign, no padding, no digits of
     * other scripts.
     */
    @Test
    void hashIncrementReadsOnlyAnIntegerWrittenAsRedisWritesOne() {
        Map<String, String> notIntegers = Map.of("leading-zero", "05", "plus", "+5", "minus-zero", "-0", "padded", "5 ",
                "arabic-indic", "\u0663");
        notIntegers.forEach((field, value) -> store.hashSet("counts", field, value));
        store.hashSet("counts", "negative", "-5");
        store.hashSet("counts", "zero", "0");

        notIntegers.forEach((field, value) -> assertThat(catchThrowable(() -> store.hashIncrement("counts", field, 1)))
                .as("%s (%s)", field, value).isInstanceOf(BitmapStoreException.class));
        assertThat(store.hashIncrement("counts", "negative", 1)).isEqualTo(-4);
        assertThat(store.hashIncrement("counts", "zero", 1)).isEqualTo(1);
        notIntegers.forEach((field, value) -> assertThat(store.hashGetAll("counts")).containsEntry(field, value));
    }

    /** A command on a key of another type fails, as Redis's {@code WRONGTYPE} does, and changes nothing. */
    @Test
    void aPrimitiveOnAKeyOfAnotherTypeFailsAndChangesNothing() {
        store.setIfAbsent("string", "value", null);
        store.hashSet("hash", "field", "value");
        Map<String, ThrowingCallable> wrongType = new LinkedHashMap<>();
        wrongType.put("get", () -> store.get("hash"));
        wrongType.put("length", () -> store.length("hash"));
        wrongType.put("bitCount", () -> store.bitCount("hash"));
        wrongType.put("clearBit", () -> store.clearBit("hash", 0));
        wrongType.put("expireIfEquals", () -> store.expireIfEquals("hash", "value", Duration.ofMillis(1)));
        wrongType.put("deleteIfEquals", () -> store.deleteIfEquals("hash", "value"));
        wrongType.put("hashSet", () -> store.hashSet("string", "field", "value"));
        wrongType.put("hashIncrement", () -> store.hashIncrement("string", "field", 1));
        wrongType.put("hashDelete", () -> store.hashDelete("string", "field"));
        wrongType.put("hashGetAll", () -> store.hashGetAll("string"));
        wrongType.put("readRegistry", () -> store.readRegistry("string", GENERATIONS));
        wrongType.put("heartbeat", () -> store.heartbeat("string", GENERATIONS, INVALIDATED, "instance-a", "v1",
                List.of("g1"), List.of()));

        wrongType.forEach((name, call) -> assertThat(catchThrowable(call)).as(name).isInstanceOf(BitmapStoreException.class));
        assertThat(store.get("string")).contains("value");
        assertThat(store.hashGetAll("hash")).isEqualTo(Map.of("field", "value"));
        assertThat(store.hashGetAll(GENERATIONS)).isEmpty();
    }

    /** {@code DEL} needs a key: a delete of none is refused, not a no-op. */
    @Test
    void deleteOfNoKeyIsRefused() {
        assertThat(catchThrowable(() -> store.delete())).isInstanceOf(BitmapStoreException.class);
    }

    /** As a generation's ready markers are cleared: a bitmap that is there loses the bit, one that is not stays away. */
    @Test
    void clearBitClearsABitOfAKeyThatExistsAndCreatesNone() {
        store.clearBit("missing", 7);
        assertThat(store.get("missing")).as("a missing key stays missing").isEmpty();
        assertThat(store.length("missing")).isZero();
        assertThat(store.bitCount("missing")).isZero();

        store.writeBitmap("bits", new byte[] { (byte) 0xff, 0x0f }, Duration.ofSeconds(1));
        assertThat(store.bitCount("bits")).isEqualTo(12);
        assertThat(store.length("bits")).isEqualTo(2);
        store.clearBit("bits", 0);
        store.clearBit("bits", 0);
        store.clearBit("bits", 8);
        assertThat(store.getRange("bits", 0, -1)).containsExactly(0x7f, 0x0f);
        assertThat(store.bitCount("bits")).isEqualTo(11);

        store.clearBit("bits", 31);
        assertThat(store.length("bits")).as("grown with zeros, as SETBIT grows a string").isEqualTo(4);
        assertThat(store.getRange("bits", 0, -1)).containsExactly(0x7f, 0x0f, 0, 0);
        assertThat(store.bitCount("bits")).isEqualTo(11);

        advance(Duration.ofMillis(1_200));
        assertThat(store.length("bits")).as("the expiry writeBitmap gave it is kept").isZero();
    }

    // The rollout registry (RegistryStore): heartbeat.lua, registry.lua and time.lua, by Redis's clock.

    @Test
    void aHeartbeatRecordsItsEntriesAtRedisTimeAndReadsTheRegistryWhole() {
        long before = store.timeMillis(GENERATIONS);
        BitmapStore.Heartbeat first = store.heartbeat(INSTANCES, GENERATIONS, INVALIDATED, "instance-a", "v1;writes=g1",
                List.of("g1", "g2"), List.of());
        String at = Long.toString(first.now());
        assertThat(first.now()).isBetween(before, store.timeMillis(GENERATIONS));
        assertThat(first.instances()).isEqualTo(Map.of("instance-a", "v1;writes=g1|" + at));
        assertThat(first.generations()).isEqualTo(Map.of("g1", at, "g2", at));
        assertThat(first.invalidated()).isEmpty();

        advance(Duration.ofMillis(100));
        BitmapStore.Heartbeat second = store.heartbeat(INSTANCES, GENERATIONS, INVALIDATED, "instance-b", "v2",
                List.of("g2"), List.of("live-g1"));
        String later = Long.toString(second.now());
        assertThat(second.now()).isGreaterThanOrEqualTo(first.now() + 100);
        assertThat(second.instances()).isEqualTo(Map.of("instance-a", "v1;writes=g1|" + at, "instance-b", "v2|" + later));
        assertThat(second.generations()).as("g1 where instance-a left it").isEqualTo(Map.of("g1", at, "g2", later));
        assertThat(second.invalidated()).isEqualTo(Map.of("live-g1", later));

        BitmapStore.Heartbeat third = store.heartbeat(INSTANCES, GENERATIONS, INVALIDATED, "instance-a", "v1;writes=",
                List.of(), List.of());
        String last = Long.toString(third.now());
        assertThat(third.instances()).as("an instance's entry is replaced by its next heartbeat")
                .isEqualTo(Map.of("instance-a", "v1;writes=|" + last, "instance-b", "v2|" + later));
        assertThat(third.generations()).as("no generation heartbeated, none touched").isEqualTo(second.generations());
        assertThat(third.invalidated()).isEqualTo(second.invalidated());

        BitmapStore.Registry registry = store.readRegistry(GENERATIONS, INVALIDATED);
        assertThat(registry.now()).isBetween(third.now(), store.timeMillis(GENERATIONS));
        assertThat(registry.generations()).isEqualTo(third.generations());
        assertThat(registry.invalidated()).isEqualTo(third.invalidated());
        assertThat(store.hashGetAll(INSTANCES)).isEqualTo(third.instances());
    }

    /**
     * Nothing in the registry expires by itself, and reading it writes nothing: an entry keeps the
     * time of the heartbeat that wrote it until a later one, and goes only when it is deleted (an
     * instance leaving or forgotten, a generation deleted), as the scripts set no TTL.
     */
    @Test
    void theRegistryKeepsEachEntryWithItsTimeUntilItIsDeleted() {
        BitmapStore.Registry none = store.readRegistry(GENERATIONS, INVALIDATED);
        assertThat(none.generations()).isEmpty();
        assertThat(none.invalidated()).isEmpty();
        BitmapStore.Heartbeat beat = store.heartbeat(INSTANCES, GENERATIONS, INVALIDATED, "instance-a", "v1",
                List.of("g1"), List.of("live-g0"));
        String at = Long.toString(beat.now());

        advance(Duration.ofMillis(300));
        BitmapStore.Registry registry = store.readRegistry(GENERATIONS, INVALIDATED);
        assertThat(registry.now()).isGreaterThanOrEqualTo(beat.now() + 300);
        assertThat(registry.generations()).isEqualTo(Map.of("g1", at));
        assertThat(registry.invalidated()).isEqualTo(Map.of("live-g0", at));
        BitmapStore.Registry again = store.readRegistry(GENERATIONS, INVALIDATED);
        assertThat(again.generations()).as("reading wrote nothing").isEqualTo(Map.of("g1", at));
        assertThat(again.invalidated()).isEqualTo(Map.of("live-g0", at));
        assertThat(store.hashGetAll(INSTANCES)).isEqualTo(Map.of("instance-a", "v1|" + at));

        store.hashDelete(GENERATIONS, "g1");
        store.hashDelete(INVALIDATED, "live-g0");
        store.hashDelete(INSTANCES, "instance-a", Duration.ofMillis(500));
        BitmapStore.Registry emptied = store.readRegistry(GENERATIONS, INVALIDATED);
        assertThat(emptied.generations()).isEmpty();
        assertThat(emptied.invalidated()).isEmpty();
        assertThat(store.hashGetAll(INSTANCES)).isEmpty();
        assertThat(store.setIfAbsent(GENERATIONS, "free", null)).as("no key left behind").isTrue();
    }

    /** The clock of the registry's times is the clock of the store's expiries; reading it touches no key. */
    @Test
    void timeMillisIsTheClockTheStoreExpiresKeysBy() {
        long start = store.timeMillis("clock");
        assertThat(store.setIfAbsent("clock", "value", Duration.ofSeconds(1))).as("the slot key is not touched").isTrue();

        advance(Duration.ofMillis(1_200));

        assertThat(store.timeMillis("clock")).isGreaterThanOrEqualTo(start + 1_200);
        assertThat(store.get("clock")).isEmpty();
    }

    // Trusting mirrors (EventStore): trust.lua and announce.lua.

    @Test
    void renewTrustKeepsTrustingUntilAheadOnceTheFilterIsLoadedAndPingsEitherWay() {
        Queue<String> heard = listen("trust");
        long[] unloaded = store.renewTrust(META, "trust", bytes("ping-1"), Duration.ofSeconds(1));
        assertThat(unloaded[0]).isZero();
        assertThat(unloaded[1]).as("nothing to trust before a load").isZero();
        assertThat(store.hashGetAll(META)).isEmpty();

        store.hashSet(META, "loadedAt", "1");
        long before = store.timeMillis(META);
        long[] renewed = store.renewTrust(META, "trust", bytes("ping-2"), Duration.ofSeconds(1));
        assertThat(renewed[0]).isZero();
        assertThat(renewed[2]).isGreaterThanOrEqualTo(before);
        assertThat(renewed[1]).isBetween(before + 1_000, renewed[2] + 1_000);
        assertThat(store.hashGetAll(META)).containsEntry("trustingUntil", Long.toString(renewed[1]));

        long[] shorter = store.renewTrust(META, "trust", bytes("ping-3"), Duration.ofMillis(300));
        assertThat(shorter[0]).isEqualTo(renewed[1]);
        assertThat(shorter[1]).as("never moved back").isEqualTo(renewed[1]);
        assertThat(store.hashGetAll(META)).containsEntry("trustingUntil", Long.toString(renewed[1]));

        advance(Duration.ofMillis(1_200));
        long lapsedAt = store.timeMillis(META);
        long[] lapsed = store.renewTrust(META, "trust", bytes("ping-4"), Duration.ofSeconds(1));
        assertThat(lapsed[0]).isEqualTo(renewed[1]);
        assertThat(lapsed[2]).isGreaterThanOrEqualTo(renewed[2] + 1_200);
        assertThat(lapsed[1]).isBetween(lapsedAt + 1_000, lapsed[2] + 1_000);

        store.hashDelete(META, "loadedAt");
        long[] unloadedAgain = store.renewTrust(META, "trust", bytes("ping-5"), Duration.ofMinutes(1));
        assertThat(unloadedAgain[0]).isEqualTo(lapsed[1]);
        assertThat(unloadedAgain[1]).as("left as it was once the load is gone").isEqualTo(lapsed[1]);
        assertThat(store.hashGetAll(META)).isEqualTo(Map.of("trustingUntil", Long.toString(lapsed[1])));

        Await.until("five pings heard", TIMEOUT, () -> heard.size() == 5);
        assertThat(heard).containsExactly("ping-1", "ping-2", "ping-3", "ping-4", "ping-5");
    }

    @Test
    void announceAsyncPublishesOnlyWhileTrustingUntilLiesAhead() {
        Queue<String> heard = listen("adds");
        assertThat(store.announceAsync(META, "adds", bytes("add-1")).join()).as("nobody trusts").isFalse();
        store.hashSet(META, "trustingUntil", Long.toString(store.timeMillis(META) - 1));
        assertThat(store.announceAsync(META, "adds", bytes("add-2")).join()).as("trust lapsed").isFalse();

        store.hashSet(META, "loadedAt", "1");
        store.renewTrust(META, "trust", bytes("ping"), Duration.ofSeconds(1));
        assertThat(store.announceAsync(META, "adds", bytes("add-3")).join()).isTrue();
        advance(Duration.ofMillis(1_200));
        assertThat(store.announceAsync(META, "adds", bytes("add-4")).join()).as("past trustingUntil").isFalse();

        store.publish("adds", bytes("end"));
        Await.until("the end heard", TIMEOUT, () -> heard.contains("end"));
        assertThat(heard).containsExactly("add-3", "end");
    }

    // The journal's upkeep (LoadStore.maintainJournal): maintain-journal.lua, by Redis's clock.

    @Test
    void maintainJournalStartsTheRetentionThenRotatesTheJournalOncePerRetention() {
        BitmapStore.JournalKeys journal = journal("rotated");
        push(journal, 2);
        long before = store.timeMillis(journal.since());

        assertThat(store.maintainJournal(journal, Duration.ofSeconds(1), 100)).isZero();
        long since = Long.parseLong(store.get(journal.since()).orElseThrow());
        assertThat(since).as("the retention starts now").isBetween(before, store.timeMillis(journal.since()));
        assertThat(store.listLength(journal.current())).isEqualTo(2);
        assertThat(store.listLength(journal.previous())).isZero();

        advance(Duration.ofMillis(500));
        assertThat(store.maintainJournal(journal, Duration.ofSeconds(1), 100)).isZero();
        assertThat(store.listLength(journal.current())).as("within the retention").isEqualTo(2);
        assertThat(store.get(journal.since())).contains(Long.toString(since));

        advance(Duration.ofMillis(700));
        assertThat(store.maintainJournal(journal, Duration.ofSeconds(1), 100)).isZero();
        assertThat(store.listLength(journal.previous())).as("rotated").isEqualTo(2);
        assertThat(store.listLength(journal.current())).isZero();
        long rotatedAt = Long.parseLong(store.get(journal.since()).orElseThrow());
        assertThat(rotatedAt).isGreaterThanOrEqualTo(since + 1_000);

        push(journal, 1);
        advance(Duration.ofMillis(1_200));
        assertThat(store.maintainJournal(journal, Duration.ofSeconds(1), 100)).isZero();
        assertThat(store.listLength(journal.previous())).as("the two oldest adds gone after two retentions").isEqualTo(1);
        assertThat(store.listLength(journal.current())).isZero();
        assertThat(Long.parseLong(store.get(journal.since()).orElseThrow())).isGreaterThanOrEqualTo(rotatedAt + 1_000);
    }

    @Test
    void maintainJournalDoesNotRotateWhileALoadHoldsTheJournal() {
        BitmapStore.JournalKeys journal = journal("held");
        push(journal, 1);
        store.maintainJournal(journal, Duration.ofSeconds(1), 100);
        assertThat(store.beginJournalLoad(journal, "load-1", MARK, Duration.ofMinutes(1))).isEqualTo(1);

        advance(Duration.ofMillis(1_200));
        assertThat(store.maintainJournal(journal, Duration.ofSeconds(1), 100)).isZero();
        assertThat(store.listLength(journal.current())).as("the load's mark stays where it was left").isEqualTo(2);
        assertThat(store.listLength(journal.previous())).isZero();

        assertThat(store.deleteIfEquals(journal.loading(), "load-1")).isTrue();
        assertThat(store.maintainJournal(journal, Duration.ofSeconds(1), 100)).isZero();
        assertThat(store.listLength(journal.previous())).as("rotated once the hold ended").isEqualTo(2);
        assertThat(store.listLength(journal.current())).isZero();
    }

    @Test
    void maintainJournalDropsTheOldestBeyondItsCapacityAndMarksTheJournalDroppedForARetention() {
        BitmapStore.JournalKeys journal = journal("capped");
        push(journal, 3);
        assertThat(store.maintainJournal(journal, Duration.ofSeconds(1), 2)).isEqualTo(1);
        assertThat(store.listLength(journal.current())).isEqualTo(2);
        assertThat(store.get(journal.dropped())).contains("1");

        advance(Duration.ofMillis(1_200));
        assertThat(store.get(journal.dropped())).as("marked for a retention").isEmpty();
        assertThat(store.maintainJournal(journal, Duration.ofSeconds(1), 10)).as("within capacity").isZero();
        assertThat(store.listLength(journal.previous())).isEqualTo(2);
        assertThat(store.get(journal.dropped())).as("nothing dropped, nothing marked").isEmpty();

        push(journal, 2);
        assertThat(store.maintainJournal(journal, Duration.ofSeconds(1), 3)).isEqualTo(1);
        assertThat(store.listLength(journal.previous())).as("the oldest first, from previous").isEqualTo(1);
        assertThat(store.listLength(journal.current())).isEqualTo(2);

        store.beginJournalLoad(journal, "load-1", MARK, Duration.ofMinutes(1));
        assertThat(store.maintainJournal(journal, Duration.ofSeconds(1), 2)).as("previous only, while a load holds")
                .isEqualTo(1);
        assertThat(store.listLength(journal.previous())).isZero();
        assertThat(store.listLength(journal.current())).as("over capacity, but the load's mark stays").isEqualTo(3);

        advance(Duration.ofMillis(1_200));
        assertThat(store.get(journal.dropped())).as("merged as long as the load may swap, and a retention more")
                .contains("1");
    }

    private RedisBloomFilter filter(String name, FilterGeometry geometry) {
        RedisBloomFilter filter = RedisBloomFilter.builder(name, geometry, store).checkTimeout(TIMEOUT).build();
        filters.add(filter);
        return filter;
    }

    private RedisBloomFilter instance(String name, String instanceId) {
        RedisBloomFilter filter = RedisBloomFilter.builder(name, FilterGeometry.of(1_000, 0.01), store)
                .checkTimeout(TIMEOUT).instanceId(instanceId).build();
        filters.add(filter);
        return filter;
    }

    /** What {@code channel} delivers from now on, as text. */
    private Queue<String> listen(String channel) {
        Queue<String> heard = new ConcurrentLinkedQueue<>();
        subscriptions.add(store.subscribe(channel, message -> heard.add(new String(message, StandardCharsets.UTF_8))));
        return heard;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static BitmapStore.JournalKeys journal(String name) {
        String prefix = "journal:{" + name + "}:";
        return new BitmapStore.JournalKeys(prefix + "current", prefix + "previous", prefix + "since", prefix + "dropped",
                prefix + "loading");
    }

    /** {@code adds} adds onto the journal's current list, one offset each, as an add journals them. */
    private void push(BitmapStore.JournalKeys journal, int adds) {
        List<byte[]> entries = LongStream.range(0, adds).mapToObj(offset -> PackedOffsets.pack(new long[] { offset }, 0, 1))
                .toList();
        store.journalAndSetBitsMany(List.of(new BitmapStore.ShardAdds(journal.current(), entries,
                journal.current() + ":bits", LongStream.range(0, adds).toArray(), null, null)));
    }

    private static List<Object> absentKeys(RedisBloomFilter filter, int count) {
        return AbsentKeys.first(count, LongStream.iterate(10_000_000L, id -> id + 1).boxed().map(id -> (Object) ("absent-" + id)),
                key -> filter.check(key) == Membership.ABSENT);
    }
}
