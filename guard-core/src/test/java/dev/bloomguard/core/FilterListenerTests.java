package dev.bloomguard.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.bloomguard.core.filter.FilterEvent.AddFailed;
import dev.bloomguard.core.filter.FilterEvent.Loaded;
import dev.bloomguard.core.filter.FilterEvent.NotReady;
import dev.bloomguard.core.filter.FilterEvent;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.BitmapStoreException;
import dev.bloomguard.core.redis.LettuceBitmapStore;
import dev.bloomguard.core.redis.LettuceClients;
import dev.bloomguard.core.redis.RealRedis;
import dev.bloomguard.embedded.RedisServer;
import dev.bloomguard.testsupport.AbsentKeys;
import dev.bloomguard.testsupport.Await;
import dev.bloomguard.testsupport.TestNames;

/**
 * What a filter tells its listeners, against a real Redis: why it could not answer "absent" (the
 * two causes a warmer must tell apart: a missing bitmap, to load, and a suspended one, built from
 * another source), that a load swapped in, and that an add failed, for blocking and asynchronous
 * calls alike.
 */
class FilterListenerTests {

    @RegisterExtension
    static final RealRedis REDIS = new RealRedis(Duration.ofSeconds(5));

    private static final Duration CHECK_TIMEOUT = Duration.ofSeconds(2);

    private final List<FilterEvent> heard = new CopyOnWriteArrayList<>();

    @Test
    void aFilterMissingFromRedisIsNotReadyBecauseIncompleteUntilALoadSwapsIn(TestInfo test) {
        RedisBloomFilter filter = filter(TestNames.unique(test), REDIS.store());

        assertThat(filter.check(1L)).isEqualTo(Membership.NOT_READY);
        assertThat(filter.checkAll(List.of(1L, 2L))).containsOnly(Membership.NOT_READY);
        assertThat(filter.checkAsync(3L).join()).isEqualTo(Membership.NOT_READY);
        assertThat(filter.checkAllAsync(List.of(4L, 5L)).join()).containsOnly(Membership.NOT_READY);
        Await.until("the asynchronous checks' events", Duration.ofSeconds(5), () -> notReady().size() == 4);
        assertThat(notReady()).allSatisfy(event -> {
            assertThat(event.cause()).isEqualTo(NotReadyCause.INCOMPLETE);
            assertThat(event.filter()).isSameAs(filter);
        });

        LoadReport report = filter.load(LongStream.rangeClosed(1, 1_000).boxed());

        assertThat(heard).filteredOn(Loaded.class::isInstance).singleElement()
                .satisfies(event -> assertThat(((Loaded) event).report()).isSameAs(report));
        heard.clear();
        assertThat(filter.checkAll(LongStream.rangeClosed(1, 1_000).boxed().toList())).containsOnly(Membership.PRESENT);
        List<Long> absent = absentKeys(filter);
        assertThat(absent).hasSizeGreaterThan(400);
        assertThat(filter.check(absent.get(0))).isEqualTo(Membership.ABSENT);
        assertThat(heard).as("a ready filter tells nothing").isEmpty();
    }

    /**
     * Adds still being retried, and a rewind not acted on yet, mend themselves (the adds land, the
     * filter is made not ready): a check they hold lets the key through and tells no listener,
     * whose reaction would be to reload the whole filter from its source, again after each load,
     * for as long as Redis refuses the adds.
     */
    @Test
    void aFilterHeldForItsOwnAddsLetsAbsentKeysThroughWithoutAskingForALoad(TestInfo test) {
        RedisBloomFilter filter = filter(TestNames.unique(test), REDIS.store());
        filter.load(LongStream.rangeClosed(1, 1_000).boxed());
        List<Long> absent = absentKeys(filter);
        heard.clear();

        for (Hold reason : List.of(Hold.PENDING_ADDS, Hold.REWOUND)) {
            filter.hold(reason);
            assertThat(filter.check(absent.get(0))).isEqualTo(Membership.NOT_READY);
            assertThat(filter.checkAll(absent)).containsOnly(Membership.NOT_READY);
            assertThat(filter.checkAsync(absent.get(1)).join()).isEqualTo(Membership.NOT_READY);
            assertThat(filter.checkAllAsync(absent).join()).containsOnly(Membership.NOT_READY);
            filter.release(reason);
        }
        // A check held for another source does tell: its event comes after any the checks above sent.
        filter.hold(Hold.FOREIGN_SOURCE);
        assertThat(filter.checkAsync(absent.get(2)).join()).isEqualTo(Membership.NOT_READY);
        Await.until("the suspended check's event", Duration.ofSeconds(5), () -> !notReady().isEmpty());
        filter.release(Hold.FOREIGN_SOURCE);
        assertThat(notReady()).extracting(NotReady::cause).containsExactly(NotReadyCause.SUSPENDED);

        assertThat(filter.checkAll(absent)).as("released: the same checks block").containsOnly(Membership.ABSENT);
    }

    @Test
    void aSuspendedFilterIsNotReadyBecauseSuspendedOnlyForTheKeysItWouldBlock(TestInfo test) {
        RedisBloomFilter filter = filter(TestNames.unique(test), REDIS.store());
        filter.load(LongStream.rangeClosed(1, 1_000).boxed());
        List<Long> absent = absentKeys(filter);
        heard.clear();

        filter.hold(Hold.FOREIGN_SOURCE);

        assertThat(filter.check(absent.get(0))).isEqualTo(Membership.NOT_READY);
        assertThat(filter.checkAll(absent)).containsOnly(Membership.NOT_READY);
        assertThat(filter.checkAsync(absent.get(1)).join()).isEqualTo(Membership.NOT_READY);
        assertThat(filter.checkAllAsync(absent).join()).containsOnly(Membership.NOT_READY);
        Await.until("the asynchronous checks' events", Duration.ofSeconds(5), () -> notReady().size() == 4);
        assertThat(notReady()).extracting(NotReady::cause).containsOnly(NotReadyCause.SUSPENDED);
        assertThat(filter.checkAll(LongStream.rangeClosed(1, 1_000).boxed().toList())).containsOnly(Membership.PRESENT);
        assertThat(notReady()).as("present keys tell nothing").hasSize(4);

        filter.release(Hold.FOREIGN_SOURCE);

        assertThat(filter.checkAll(absent)).containsOnly(Membership.ABSENT);
        assertThat(notReady()).hasSize(4);
    }

    @Test
    void aFailedAddIsToldWithWhatTheCallerGot(TestInfo test) {
        RedisServer doomed = RedisServer.start();
        LettuceClients client = LettuceClients.standalone(doomed.port());
        try {
            BitmapStore store = LettuceBitmapStore.create(client, Duration.ofMillis(500));
            RedisBloomFilter filter = filter(TestNames.unique(test), store);
            filter.load(Stream.of(1L, 2L));
            filter.add(3L);
            assertThat(heard).noneMatch(AddFailed.class::isInstance);

            doomed.stop();

            Throwable thrown = catchThrowable(() -> filter.addAll(List.of(4L, 5L)));
            assertThat(thrown).isInstanceOf(BitmapStoreException.class);
            Throwable failed = catchThrowable(() -> filter.addAllAsync(List.of(6L, 7L, 8L)).join());
            assertThat(failed).isInstanceOf(CompletionException.class).hasCauseInstanceOf(BitmapStoreException.class);
            Await.until("the asynchronous add's event", Duration.ofSeconds(5),
                    () -> addFailures().size() == 2);
            assertThat(addFailures().get(0)).satisfies(event -> {
                assertThat(event.keys()).isEqualTo(2);
                assertThat(event.error()).isSameAs(thrown);
            });
            assertThat(addFailures().get(1)).satisfies(event -> {
                assertThat(event.keys()).isEqualTo(3);
                assertThat(event.error()).isSameAs(failed.getCause());
            });
        }
        finally {
            client.close();
            doomed.close();
        }
    }

    @Test
    void aListenerThatThrowsChangesNoAnswerAndTheOthersAreStillTold(TestInfo test) {
        AtomicInteger notReadyCalls = new AtomicInteger();
        RedisBloomFilter filter = RedisBloomFilter.builder(TestNames.unique(test), FilterGeometry.of(10_000, 0.01),
                REDIS.store()).checkTimeout(CHECK_TIMEOUT)
                .listener(event -> {
                    throw new IllegalStateException("a listener's bug");
                })
                .listener(heard::add)
                .onNotReady(notReady -> notReadyCalls.incrementAndGet())
                .build();

        assertThat(filter.check(1L)).isEqualTo(Membership.NOT_READY);
        LoadReport report = filter.load(LongStream.rangeClosed(1, 1_000).boxed());

        assertThat(report.keys()).isEqualTo(1_000);
        assertThat(notReady()).extracting(NotReady::cause).containsExactly(NotReadyCause.INCOMPLETE);
        assertThat(notReadyCalls).as("the not-ready listener hears not-ready events alone").hasValue(1);
        assertThat(heard).filteredOn(Loaded.class::isInstance).hasSize(1);
        assertThat(filter.check(absentKeys(filter).get(0))).isEqualTo(Membership.ABSENT);
        assertThat(filter.check(500L)).isEqualTo(Membership.PRESENT);
    }

    @Test
    void aNullListenerIsRefusedNamingTheFilter() {
        assertThatThrownBy(() -> RedisBloomFilter.builder("orders", FilterGeometry.of(1_000, 0.01), REDIS.store())
                .listener(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'orders'");
    }

    private RedisBloomFilter filter(String name, BitmapStore store) {
        return RedisBloomFilter.builder(name, FilterGeometry.of(10_000, 0.01), store).checkTimeout(CHECK_TIMEOUT)
                .listener(heard::add).build();
    }

    private List<NotReady> notReady() {
        return heard.stream().filter(NotReady.class::isInstance).map(NotReady.class::cast).toList();
    }

    private List<AddFailed> addFailures() {
        return heard.stream().filter(AddFailed.class::isInstance).map(AddFailed.class::cast).toList();
    }

    /** Keys never added that the loaded filter blocks: most of 1,000 candidates, at fpp 0.01. */
    private static List<Long> absentKeys(RedisBloomFilter filter) {
        List<Long> candidates = LongStream.range(0, 1_000).map(i -> 1_000_000 + i).boxed().toList();
        List<Membership> answers = filter.checkAll(candidates);
        return AbsentKeys.first(900, LongStream.range(0, candidates.size()),
                i -> answers.get((int) i) == Membership.ABSENT).stream().map(i -> candidates.get((int) (long) i)).toList();
    }
}
