package dev.bloomguard.core.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.testsupport.ProcessStops;

/**
 * Issue 36: a stall of the instance is not an outage of Redis. The test's own JVM is stopped
 * ({@code SIGSTOP}) for 100 to 300 ms, again and again, while threads check present and absent
 * keys with the production check timeout of 50 ms, blocking and not. Redis, in its own process,
 * answers each check in well under a millisecond; the replies wait in the socket until the JVM
 * runs again. Measured on the caller's clock every check in flight during a pause is late, the
 * breaker counts them as Redis failing, opens, and lets every absent key through while it is
 * open. Measured on the instance's running time, nothing was late.
 */
class StalledInstanceTests {

    private static final Duration CHECK_TIMEOUT = Duration.ofMillis(50);
    private static final int PRESENT = 20_000;

    @RegisterExtension
    static final RealRedis REDIS = new RealRedis();

    @Test
    void checksInFlightDuringStopsOfTheProcessAreAnsweredAndTheBreakerStaysClosed() throws InterruptedException {
        RedisBloomFilter filter = REDIS.filter(FilterGeometry.of(PRESENT, 0.01)).checkTimeout(CHECK_TIMEOUT).build();
        filter.load(LongStream.rangeClosed(1, PRESENT).boxed());
        assertThat(filter.check(1L)).isEqualTo(Membership.PRESENT);

        List<String> transitions = new CopyOnWriteArrayList<>();
        Sweep sweep = new Sweep(filter);
        try (CircuitBreaker.Subscription listening = REDIS.store()
                .onCircuitTransition((from, to) -> transitions.add(from + " -> " + to))) {
            sweep.start(4, 2);
            Thread.sleep(300);
            ProcessStops.ofThisProcess().pause(List.of(Duration.ofMillis(120), Duration.ofMillis(250),
                    Duration.ofMillis(180), Duration.ofMillis(300), Duration.ofMillis(100), Duration.ofMillis(220),
                    Duration.ofMillis(280), Duration.ofMillis(150)), Duration.ofMillis(200));
            Thread.sleep(300);
        }
        finally {
            sweep.stop();
        }

        long absentChecks = sweep.absentChecks.sum();
        assertThat(sweep.presentBlocked.sum()).as("present keys answered ABSENT").isZero();
        assertThat(sweep.presentChecks.sum()).as("present keys checked").isGreaterThan(500);
        assertThat(absentChecks).as("absent keys checked").isGreaterThan(500);
        assertThat(transitions).as("circuit breaker transitions while the process was stopped 8 times").isEmpty();
        assertThat(sweep.unavailable.sum()).as("checks answered UNAVAILABLE, of %s", absentChecks * 2).isZero();
        double passed = (double) (absentChecks - sweep.absentBlocked.sum()) / absentChecks;
        assertThat(passed).as("share of absent keys that passed (fpp 0.01), of %s", absentChecks)
                .isLessThanOrEqualTo(0.03);
    }

    /**
     * The other side of the allowance: a Redis that does not answer still fails the check. A check
     * in flight while the process is stopped waits out the stop (the meter's own tick and each of
     * the client's I/O event loops all see it) and then what is left of its timeout, and no more;
     * every check before and after fails at its timeout.
     */
    @Test
    void aCheckThatRedisNeverAnswersWaitsOutAStopOfTheProcessAndThenOnlyItsTimeout() throws InterruptedException {
        Duration stop = Duration.ofMillis(200);
        // A breaker that never opens here: every check must wait its deadline for a Redis that does not answer.
        LettuceBitmapStore store = LettuceBitmapStore.create(REDIS.client(), Duration.ofSeconds(10), CircuitBreaker.create(
                new CircuitBreaker.Settings(100_000, Duration.ofSeconds(1), 100, 100, 1.0, Duration.ofSeconds(10), 1.0)));
        RedisBloomFilter filter = RedisBloomFilter.builder(REDIS.filterName(), FilterGeometry.of(1_000, 0.01), store)
                .checkTimeout(CHECK_TIMEOUT).build();
        filter.load(LongStream.rangeClosed(1, 1_000).boxed());
        assertThat(filter.check(1L)).isEqualTo(Membership.PRESENT);
        List<Long> absent = LongStream.rangeClosed(1_000_001, 1_000_100).filter(key -> filter.check(key) == Membership.ABSENT)
                .boxed().toList();
        assertThat(absent).as("absent keys blocked while Redis answers").hasSizeGreaterThan(90);

        REDIS.client().commands().clientPause(2_000); // Redis answers nothing; the connection stays open
        Thread stopper = new Thread(() -> ProcessStops.ofThisProcess().pause(List.of(stop), Duration.ofMillis(300)),
                "stopper");
        stopper.start();
        List<Membership> answers = new ArrayList<>();
        long longest = 0;
        long until = System.nanoTime() + Duration.ofMillis(1_200).toNanos();
        while (System.nanoTime() < until) {
            long started = System.nanoTime();
            answers.add(filter.check(absent.get(0)));
            longest = Math.max(longest, System.nanoTime() - started);
        }
        stopper.join(10_000);

        assertThat(answers).as("checks while Redis is paused").containsOnly(Membership.UNAVAILABLE);
        assertThat(Duration.ofNanos(longest)).as("the check in flight during the stop").isGreaterThan(stop)
                .isLessThan(CHECK_TIMEOUT.plus(stop).plusMillis(100));
        filter.close();
    }

    /** Threads checking a present and an absent key in turn, as fast as answered, until stopped. */
    private static final class Sweep {

        private final RedisBloomFilter filter;
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final List<Thread> threads = new ArrayList<>();
        private final LongAdder presentChecks = new LongAdder();
        private final LongAdder presentBlocked = new LongAdder();
        private final LongAdder absentChecks = new LongAdder();
        private final LongAdder absentBlocked = new LongAdder();
        private final LongAdder unavailable = new LongAdder();

        Sweep(RedisBloomFilter filter) {
            this.filter = filter;
        }

        void start(int blocking, int async) {
            for (int i = 0; i < blocking + async; i++) {
                boolean blockingThread = i < blocking;
                Thread thread = new Thread(() -> run(blockingThread), "sweep-" + i);
                thread.setDaemon(true);
                threads.add(thread);
                thread.start();
            }
        }

        private void run(boolean blocking) {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            while (running.get()) {
                long present = random.nextLong(1, PRESENT + 1);
                Membership answer = blocking ? filter.check(present) : filter.checkAsync(present).join();
                presentChecks.increment();
                if (answer == Membership.ABSENT) {
                    presentBlocked.increment();
                }
                if (answer == Membership.UNAVAILABLE) {
                    unavailable.increment();
                }
                long absent = random.nextLong(1_000_000_000L, 2_000_000_000L);
                answer = blocking ? filter.check(absent) : filter.checkAsync(absent).join();
                absentChecks.increment();
                if (answer == Membership.ABSENT) {
                    absentBlocked.increment();
                }
                if (answer == Membership.UNAVAILABLE) {
                    unavailable.increment();
                }
            }
        }

        void stop() throws InterruptedException {
            running.set(false);
            for (Thread thread : threads) {
                thread.join(10_000);
            }
        }
    }
}
