package dev.bloomguard.core;

import static dev.bloomguard.core.redis.RealRedis.GENEROUS_CHECK_TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.BitmapStoreException;
import dev.bloomguard.core.redis.LettuceBitmapStore;
import dev.bloomguard.core.redis.LettuceClients;
import dev.bloomguard.embedded.RedisServer;
import dev.bloomguard.testsupport.AbsentKeys;
import dev.bloomguard.testsupport.Await;

/**
 * The moment between an instance noticing that Redis went back in time and acting on it. Redis
 * restarts from a snapshot older than this instance's last adds; its next add reads a count
 * lower than the one it confirmed, so it knows those keys' bits are gone. Making the filter not
 * ready (clearing every shard's marker) is work for the background executor, which a load, a
 * mirror's pages or a slow listener may keep busy for seconds. Until then the lost keys' clear
 * bits sit under a set marker: judged by the reply alone they are "absent", and real rows whose
 * adds this instance made are refused. What the instance knows must count from the moment it
 * knows it: the rewind is a reason not to block, held from the add that saw it.
 */
class RewindNoticedTests {

    private static final FilterGeometry GEOMETRY = FilterGeometry.of(10_000, 0.01);

    @Test
    void keysLostByARewindAreNotBlockedWhileTheInstanceThatNoticedItHasNotActedYet() throws Exception {
        DeferredExecutor background = new DeferredExecutor();
        try (RedisServer rewinding = RedisServer.start()) {
            LettuceClients client = LettuceClients.standalone(rewinding.port());
            try {
                BitmapStore store = LettuceBitmapStore.create(client, Duration.ofSeconds(10));
                RedisBloomFilter adder = RedisBloomFilter.builder("rewind-noticed", GEOMETRY, store)
                        .checkTimeout(GENEROUS_CHECK_TIMEOUT).background(background).build();
                adder.load(LongStream.rangeClosed(1, 1_000).boxed());
                List<Object> beforeSnapshot = absentKeys(adder, 20);
                adder.addAll(beforeSnapshot);
                client.commands().save();
                List<Object> afterSnapshot = absentKeys(adder, 50);
                adder.addAll(afterSnapshot);
                assertThat(adder.checkAll(afterSnapshot)).containsOnly(Membership.PRESENT);

                rewinding.restart(); // from the snapshot: the last 50 adds are gone
                background.runAll(); // whatever was queued before the restart
                // The adder's next add reads its own count below what it confirmed: it now knows.
                untilRedisAnswers(() -> adder.addAll(List.of("after-the-restart")));
                assertThat(background.queued()).as("acting on the rewind waits for the background executor")
                        .isPositive();

                assertThat(adder.checkAll(afterSnapshot)).as("rows whose adds Redis lost, before the instance acted")
                        .doesNotContain(Membership.ABSENT);
                assertThat(adder.check(afterSnapshot.get(0))).isNotEqualTo(Membership.ABSENT);
                assertThat(adder.checkAsync(afterSnapshot.get(1)).get()).isNotEqualTo(Membership.ABSENT);

                background.runAll(); // the instance acts: every shard not ready until a load
                assertThat(adder.checkAll(afterSnapshot)).doesNotContain(Membership.ABSENT);
                assertThat(adder.checkAll(beforeSnapshot)).doesNotContain(Membership.ABSENT);

                // The reload the not-ready signal schedules: then the same checks block again.
                adder.load(Stream.of(LongStream.rangeClosed(1, 1_000).boxed(), beforeSnapshot.stream(),
                        afterSnapshot.stream(), Stream.of("after-the-restart")).flatMap(keys -> keys));
                background.runAll();
                assertThat(adder.checkAll(afterSnapshot)).containsOnly(Membership.PRESENT);
                List<Object> neverAdded = IntStream.range(0, 1_000).mapToObj(i -> (Object) ("never-" + i)).toList();
                long blocked = adder.checkAll(neverAdded).stream().filter(Membership.ABSENT::equals).count();
                assertThat(blocked).as("absent keys blocked once loaded again").isGreaterThan(950);
                adder.close();
            }
            finally {
                client.close();
            }
        }
    }

    /**
     * The instance acts on the rewind, but Redis refuses to clear the markers (a timeout just
     * after a failover, an open circuit): the markers stay set over the lost keys' clear bits, so
     * the rewind stays a reason not to block until a later look at Redis makes the filter not ready.
     */
    @Test
    void keysLostByARewindStayUnblockedWhenTheMarkersCouldNotBeClearedUntilALaterLookClearsThem() throws Exception {
        DeferredExecutor background = new DeferredExecutor();
        AtomicBoolean refuseClears = new AtomicBoolean();
        try (RedisServer rewinding = RedisServer.start()) {
            LettuceClients client = LettuceClients.standalone(rewinding.port());
            try {
                BitmapStore redis = LettuceBitmapStore.create(client, Duration.ofSeconds(10));
                BitmapStore store = (BitmapStore) Proxy.newProxyInstance(BitmapStore.class.getClassLoader(),
                        new Class<?>[] { BitmapStore.class }, (proxy, method, args) -> {
                            if (method.getName().equals("clearBit") && refuseClears.get()) {
                                throw new BitmapStoreException("Command timed out (the test's)", null);
                            }
                            try {
                                return method.invoke(redis, args);
                            }
                            catch (InvocationTargetException ex) {
                                throw ex.getCause();
                            }
                        });
                RedisBloomFilter adder = RedisBloomFilter.builder("rewind-not-cleared", GEOMETRY, store)
                        .checkTimeout(GENEROUS_CHECK_TIMEOUT).background(background).build();
                adder.load(LongStream.rangeClosed(1, 1_000).boxed());
                client.commands().save();
                List<Object> afterSnapshot = absentKeys(adder, 50);
                adder.addAll(afterSnapshot);

                rewinding.restart();
                background.runAll();
                untilRedisAnswers(() -> adder.addAll(List.of("after-the-restart")));
                refuseClears.set(true);
                background.runAll(); // acts, and cannot clear the markers
                assertThat(adder.isComplete()).as("the markers are still set").contains(true);
                assertThat(adder.checkAll(afterSnapshot)).as("rows whose adds Redis lost, the markers still set")
                        .doesNotContain(Membership.ABSENT);
                assertThat(adder.holds()).contains(Hold.REWOUND);

                refuseClears.set(false);
                assertThat(adder.verifyNotBehind()).as("the next look acts on it").isTrue();
                assertThat(adder.isComplete()).contains(false);
                assertThat(adder.holds()).doesNotContain(Hold.REWOUND);
                assertThat(adder.checkAll(afterSnapshot)).doesNotContain(Membership.ABSENT);

                adder.load(Stream.of(LongStream.rangeClosed(1, 1_000).boxed(), afterSnapshot.stream(),
                        Stream.of("after-the-restart")).flatMap(keys -> keys));
                background.runAll();
                List<Object> neverAdded = IntStream.range(0, 1_000).mapToObj(i -> (Object) ("never-" + i)).toList();
                long blocked = adder.checkAll(neverAdded).stream().filter(Membership.ABSENT::equals).count();
                assertThat(blocked).as("absent keys blocked once loaded again").isGreaterThan(950);
                adder.close();
            }
            finally {
                client.close();
            }
        }
    }

    private static List<Object> absentKeys(RedisBloomFilter filter, int count) {
        List<Object> candidates = LongStream.range(0, 1_000).mapToObj(i -> (Object) ("absent-" + i)).toList();
        List<Membership> answers = filter.checkAll(candidates);
        return AbsentKeys.first(count, IntStream.range(0, candidates.size()).boxed(),
                i -> answers.get(i) == Membership.ABSENT).stream().map(candidates::get).toList();
    }

    /** Runs {@code call} once Redis answers again after its restart. */
    private static void untilRedisAnswers(Runnable call) {
        Await.until("Redis answers after its restart", Duration.ofSeconds(20), () -> {
            try {
                call.run();
                return true;
            }
            catch (BitmapStoreException ex) {
                return false;
            }
        });
    }

    /** A background executor as busy as it can be: nothing runs until the test says so. */
    private static final class DeferredExecutor implements Executor {

        private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();

        @Override
        public void execute(Runnable task) {
            tasks.add(task);
        }

        int queued() {
            return tasks.size();
        }

        void runAll() {
            for (Runnable task = tasks.poll(); task != null; task = tasks.poll()) {
                task.run();
            }
        }
    }
}
