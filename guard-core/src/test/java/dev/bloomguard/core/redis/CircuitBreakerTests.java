package dev.bloomguard.core.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.bloomguard.core.redis.CircuitBreaker.State;

class CircuitBreakerTests {

    @Test
    void opensAfterTheThresholdOfFailuresInARow() {
        CircuitBreaker breaker = CircuitBreaker.create(3, Duration.ofHours(1));
        breaker.onFailure();
        breaker.onFailure();
        assertThat(breaker.tryAcquire()).isTrue();
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
        breaker.onFailure();
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
        assertThat(breaker.tryAcquire()).isFalse();
    }

    @Test
    void aSuccessResetsTheCount() {
        CircuitBreaker breaker = CircuitBreaker.create(3, Duration.ofHours(1));
        breaker.onFailure();
        breaker.onFailure();
        breaker.onSuccess();
        breaker.onFailure();
        breaker.onFailure();
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
    }

    @Test
    void letsOneProbeThroughAfterTheOpenDurationAndClosesOnItsSuccess() throws InterruptedException {
        CircuitBreaker breaker = CircuitBreaker.create(1, Duration.ofMillis(20));
        breaker.onFailure();
        assertThat(breaker.tryAcquire()).isFalse();
        Thread.sleep(40);
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.HALF_OPEN);
        assertThat(breaker.tryAcquire()).as("the probe").isTrue();
        assertThat(breaker.tryAcquire()).as("a second caller while the probe runs").isFalse();
        breaker.onSuccess();
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
        assertThat(breaker.tryAcquire()).isTrue();
    }

    @Test
    void reopensWhenTheProbeFails() throws InterruptedException {
        CircuitBreaker breaker = CircuitBreaker.create(5, Duration.ofMillis(20));
        for (int i = 0; i < 5; i++) {
            breaker.onFailure();
        }
        Thread.sleep(40);
        assertThat(breaker.tryAcquire()).isTrue();
        breaker.onFailure();
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
        assertThat(breaker.tryAcquire()).isFalse();
    }

    /**
     * Issue 13: two calls in five time out, never two in a row. No run of failures ever reaches
     * the threshold, but every second or third caller pays the whole timeout: the rate opens it.
     */
    @Test
    void opensWhenTwoCallsInFiveFailThoughNeverTwoInARow() {
        CircuitBreaker breaker = CircuitBreaker.create(5, Duration.ofHours(1));
        int callsUntilOpen = 0;
        while (breaker.state() == CircuitBreaker.State.CLOSED && callsUntilOpen < 1_000) {
            if (callsUntilOpen % 5 == 0 || callsUntilOpen % 5 == 2) {
                breaker.onFailure();
            }
            else {
                breaker.onSuccess();
            }
            callsUntilOpen++;
        }
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
        assertThat(callsUntilOpen).as("calls until the first failure once 20 are in the window").isEqualTo(21);
    }

    @Test
    void staysClosedWhenOneCallInAHundredFails() {
        CircuitBreaker breaker = CircuitBreaker.create(CircuitBreaker.Settings.defaults());
        for (int call = 0; call < 10_000; call++) {
            if (call % 100 == 0) {
                breaker.onFailure();
            }
            else {
                breaker.onSuccess(Duration.ofMillis(1).toNanos());
            }
        }
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
    }

    @Test
    void opensWhenHalfTheCallsAreSlow() {
        CircuitBreaker breaker = CircuitBreaker.create(new CircuitBreaker.Settings(5, Duration.ofHours(1), 10, 10, 0.5,
                Duration.ofMillis(100), 0.5));
        for (int call = 0; call < 9; call++) {
            breaker.onSuccess(Duration.ofMillis(call % 2 == 0 ? 500 : 1).toNanos());
        }
        assertThat(breaker.state()).as("5 slow of 9: under the minimum of calls").isEqualTo(CircuitBreaker.State.CLOSED);
        breaker.onSuccess(Duration.ofMillis(1).toNanos());
        assertThat(breaker.state()).as("5 slow of 10").isEqualTo(CircuitBreaker.State.OPEN);
    }

    @Test
    void closingEmptiesTheWindow() throws InterruptedException {
        CircuitBreaker breaker = CircuitBreaker.create(new CircuitBreaker.Settings(5, Duration.ofMillis(20), 10, 4, 0.5,
                Duration.ofSeconds(1), 1.0));
        breaker.onFailure();
        breaker.onSuccess();
        breaker.onSuccess();
        breaker.onFailure();
        assertThat(breaker.state()).as("2 failed of 4").isEqualTo(CircuitBreaker.State.OPEN);
        Thread.sleep(40);
        assertThat(breaker.tryAcquire()).as("the probe").isTrue();
        breaker.onSuccess();
        breaker.onFailure();
        breaker.onSuccess();
        assertThat(breaker.state()).as("the failures before the probe are forgotten").isEqualTo(CircuitBreaker.State.CLOSED);
    }

    @Test
    void rejectsSettingsThatCannotWork() {
        assertThatIllegalArgumentException().isThrownBy(() -> CircuitBreaker.create(0, Duration.ofSeconds(1)))
                .withMessageContaining("failure threshold (0)");
        assertThatIllegalArgumentException().isThrownBy(() -> CircuitBreaker.create(1, Duration.ZERO))
                .withMessageContaining("open duration (PT0S)");
        assertThatIllegalArgumentException().isThrownBy(() -> new CircuitBreaker.Settings(5, Duration.ofSeconds(1), 10,
                11, 0.5, Duration.ofSeconds(1), 0.5)).withMessageContaining("minimum calls (11)");
        assertThatIllegalArgumentException().isThrownBy(() -> new CircuitBreaker.Settings(5, Duration.ofSeconds(1), 10,
                5, 1.5, Duration.ofSeconds(1), 0.5)).withMessageContaining("failure rate (1.5)");
    }

    @Test
    void tellsEachTransitionOnceInOrder() throws InterruptedException {
        CircuitBreaker breaker = CircuitBreaker.create(2, Duration.ofMillis(20));
        List<String> heard = new CopyOnWriteArrayList<>();
        breaker.onTransition((from, to) -> heard.add(from + "->" + to));

        breaker.onSuccess();
        breaker.onFailure();
        assertThat(heard).as("closed, one failure of two").isEmpty();
        breaker.onFailure();
        breaker.onFailure();
        assertThat(breaker.tryAcquire()).isFalse();
        Thread.sleep(40);
        assertThat(breaker.state()).isEqualTo(State.HALF_OPEN);
        assertThat(heard).as("the open period's end is not a transition until a probe goes").containsExactly("CLOSED->OPEN");
        assertThat(breaker.tryAcquire()).as("the probe").isTrue();
        assertThat(breaker.tryAcquire()).isFalse();
        breaker.onFailure();
        Thread.sleep(40);
        assertThat(breaker.tryAcquire()).as("the second probe").isTrue();
        breaker.onSuccess();
        breaker.onSuccess();

        assertThat(heard).containsExactly("CLOSED->OPEN", "OPEN->HALF_OPEN", "HALF_OPEN->OPEN", "OPEN->HALF_OPEN",
                "HALF_OPEN->CLOSED");
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
    }

    @Test
    void aCallInFlightThatSucceedsWhileOpenClosesItOnce() {
        CircuitBreaker breaker = CircuitBreaker.create(1, Duration.ofHours(1));
        List<String> heard = new CopyOnWriteArrayList<>();
        breaker.onTransition((from, to) -> heard.add(from + "->" + to));
        breaker.onFailure();
        breaker.onFailure();
        breaker.onSuccess();
        breaker.onSuccess();

        assertThat(heard).as("a second failure while open keeps it open, no transition")
                .containsExactly("CLOSED->OPEN", "OPEN->CLOSED");
    }

    /**
     * Many threads report at once, as a Redis going down makes every caller's check fail together:
     * each transition is told once, and the events chain (each starts where the last ended).
     */
    @Test
    void concurrentFailuresAndSuccessesTellEachTransitionExactlyOnce() throws Exception {
        int threads = 8;
        int rounds = 300;
        CircuitBreaker breaker = CircuitBreaker.create(3, Duration.ofHours(1));
        List<State[]> heard = new CopyOnWriteArrayList<>();
        breaker.onTransition((from, to) -> heard.add(new State[] {from, to}));
        CyclicBarrier barrier = new CyclicBarrier(threads);
        AtomicInteger broken = new AtomicInteger();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(() -> {
                try {
                    for (int round = 0; round < rounds; round++) {
                        barrier.await();
                        breaker.onFailure();
                        barrier.await();
                        breaker.onSuccess();
                    }
                }
                catch (Exception ex) {
                    broken.incrementAndGet();
                }
            });
            workers.add(worker);
            worker.start();
        }
        for (Thread worker : workers) {
            worker.join(60_000);
        }

        assertThat(broken).hasValue(0);
        assertThat(heard).hasSize(2 * rounds);
        for (int i = 0; i < heard.size(); i++) {
            assertThat(heard.get(i)).as("transition %s", i)
                    .containsExactly(i % 2 == 0 ? new State[] {State.CLOSED, State.OPEN}
                            : new State[] {State.OPEN, State.CLOSED});
        }
        assertThat(breaker.state()).isEqualTo(State.CLOSED);
    }

    @Test
    void concurrentCallersAfterTheOpenPeriodLetOneProbeThroughAndTellItOnce() throws Exception {
        int threads = 8;
        CircuitBreaker breaker = CircuitBreaker.create(1, Duration.ofMillis(10));
        List<String> heard = new CopyOnWriteArrayList<>();
        breaker.onTransition((from, to) -> heard.add(from + "->" + to));
        for (int round = 0; round < 50; round++) {
            breaker.onFailure();
            Thread.sleep(20);
            CyclicBarrier barrier = new CyclicBarrier(threads);
            AtomicInteger probes = new AtomicInteger();
            List<Thread> callers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread caller = new Thread(() -> {
                    try {
                        barrier.await();
                        if (breaker.tryAcquire()) {
                            probes.incrementAndGet();
                        }
                    }
                    catch (Exception ex) {
                        throw new IllegalStateException(ex);
                    }
                });
                callers.add(caller);
                caller.start();
            }
            for (Thread caller : callers) {
                caller.join(10_000);
            }
            assertThat(probes).as("round %s", round).hasValue(1);
            breaker.onSuccess();
        }

        assertThat(heard).hasSize(150);
        for (int i = 0; i < heard.size(); i += 3) {
            assertThat(heard.subList(i, i + 3)).containsExactly("CLOSED->OPEN", "OPEN->HALF_OPEN", "HALF_OPEN->CLOSED");
        }
    }

    @Test
    void aListenerThatThrowsChangesNothingAndAClosedOneHearsNoMore() {
        CircuitBreaker breaker = CircuitBreaker.create(1, Duration.ofHours(1));
        List<String> heard = new CopyOnWriteArrayList<>();
        List<String> unsubscribed = new CopyOnWriteArrayList<>();
        breaker.onTransition((from, to) -> {
            throw new IllegalStateException("a listener's bug");
        });
        breaker.onTransition((from, to) -> heard.add(from + "->" + to));
        CircuitBreaker.Subscription closed = breaker.onTransition((from, to) -> unsubscribed.add(from + "->" + to));

        breaker.onFailure();
        closed.close();
        assertThat(breaker.state()).isEqualTo(State.OPEN);
        assertThat(breaker.tryAcquire()).isFalse();
        breaker.onSuccess();

        assertThat(breaker.state()).isEqualTo(State.CLOSED);
        assertThat(breaker.tryAcquire()).isTrue();
        assertThat(heard).containsExactly("CLOSED->OPEN", "OPEN->CLOSED");
        assertThat(unsubscribed).containsExactly("CLOSED->OPEN");
    }
    /**
     * A listener that throws an Error (a logging backend's LinkageError, a test's AssertionError)
     * on the probe's transition: thrown out of tryAcquire after the probe slot was taken, no call
     * would report, and the breaker would stay half-open, failing every call, for good.
     */
    @Test
    void aListenerThatThrowsAnErrorOnTheProbeNeitherLosesTheProbeNorWedgesTheBreaker() throws InterruptedException {
        CircuitBreaker breaker = CircuitBreaker.create(1, Duration.ofMillis(20));
        List<String> thrown = new CopyOnWriteArrayList<>();
        breaker.onTransition((from, to) -> {
            if (to == State.HALF_OPEN && thrown.size() < 2) {
                thrown.add(from + "->" + to);
                throw thrown.size() == 1 ? new AssertionError("a listener's bug") : new StackOverflowError("deep logging");
            }
        });
        breaker.onFailure();
        Thread.sleep(40);

        assertThat(breaker.tryAcquire()).as("the probe, though a listener threw an AssertionError").isTrue();
        breaker.onFailure();
        Thread.sleep(40);
        assertThatThrownBy(breaker::tryAcquire).isInstanceOf(StackOverflowError.class);
        assertThat(breaker.tryAcquire()).as("the probe slot given back after a fatal error").isTrue();
        breaker.onSuccess();

        assertThat(breaker.state()).isEqualTo(State.CLOSED);
        assertThat(thrown).hasSize(2);
    }
}
