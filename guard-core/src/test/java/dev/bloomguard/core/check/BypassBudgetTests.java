package dev.bloomguard.core.check;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

/**
 * The bypass budget on a clock the test moves: its rate and burst, what a learning budget learns
 * from passed answers and for how long, its floor, its silence before the filter ever answered,
 * and a fixed rate that holds from the start.
 */
class BypassBudgetTests {

    private static final long SECOND = 1_000_000_000L;
    private static final long MILLI = 1_000_000L;

    /** Starts below zero, as {@code System.nanoTime()} may, on a second's start (see {@link #passPerSecond}). */
    private final AtomicLong clock = new AtomicLong(-7 * SECOND);

    @Test
    void aFixedBudgetLetsABurstOfOneSecondsWorthGoThenItsRatePerSecond() {
        BypassBudget budget = BypassBudget.fixed(50, clock::get);

        assertThat(bypassedNow(budget, 200)).as("a full bucket: one second's worth at once").isEqualTo(50);
        // A flood at a steady pace for 10 s: 50 a second pass, no more.
        long passed = flood(budget, 10 * SECOND, MILLI);
        assertThat(passed).isBetween(499L, 501L);
        assertThat(budget.rate()).isEqualTo(50.0);
    }

    @Test
    void anIdleBudgetRefillsToOneSecondsWorthNotMore() {
        BypassBudget budget = BypassBudget.fixed(20, clock::get);
        assertThat(bypassedNow(budget, 100)).isEqualTo(20);
        clock.addAndGet(500 * MILLI);
        assertThat(bypassedNow(budget, 100)).as("half a second refills half the bucket").isEqualTo(10);
        clock.addAndGet(60 * SECOND);
        assertThat(bypassedNow(budget, 100)).as("a minute idle refills one second's worth").isEqualTo(20);
    }

    @Test
    void aRateBelowOnePerSecondLetsOneCallGoPerInterval() {
        BypassBudget budget = BypassBudget.fixed(0.5, clock::get);
        assertThat(bypassedNow(budget, 10)).isEqualTo(1);
        clock.addAndGet(SECOND);
        assertThat(budget.tryBypass()).isFalse();
        clock.addAndGet(SECOND);
        assertThat(budget.tryBypass()).isTrue();
    }

    @Test
    void aFixedBudgetShedsFromTheStartBeforeAnyAnswer() {
        BypassBudget budget = BypassBudget.fixed(10, clock::get);
        assertThat(bypassedNow(budget, 100)).as("the first warmup is bounded too").isEqualTo(10);
        // Passed answers teach a fixed budget nothing.
        for (int i = 0; i < 5_000; i++) {
            budget.passed(clock.get());
        }
        clock.addAndGet(SECOND);
        assertThat(budget.rate()).isEqualTo(10.0);
        assertThat(bypassedNow(budget, 100)).isEqualTo(10);
    }

    @Test
    void aLearningBudgetShedsNothingBeforeTheFilterEverAnswered() {
        BypassBudget budget = BypassBudget.learning(clock::get);
        // A deploy's first warmup: every call bypassed, for a while, at any rate.
        assertThat(flood(budget, 5 * SECOND, 100_000)).as("50,000 calls in 5 s, none shed").isEqualTo(50_000);

        budget.answered();
        assertThat(bypassedNow(budget, 1_000)).as("once it answered: the floor").isEqualTo(BypassBudget.DEFAULT_FLOOR);
    }

    @Test
    void aLearningBudgetAllowsTwiceThePeakPerSecondRateOfPassedAnswers() {
        BypassBudget budget = BypassBudget.learning(clock::get);
        // A minute of answers: 300 passed per second, one second of 700.
        for (int second = 0; second < 60; second++) {
            passPerSecond(budget, second == 30 ? 700 : 300);
        }
        assertThat(budget.rate()).isEqualTo(1_400.0);

        // Redis lost: a flood for 10 s at 100,000 calls per second lets about 1,400 a second through.
        long passed = flood(budget, 10 * SECOND, 10_000);
        assertThat(passed).as("10 s at 1,400/s plus a burst of one second's worth").isBetween(14_000L, 15_401L);
    }

    @Test
    void aQuietFilterKeepsTheFloor() {
        BypassBudget budget = BypassBudget.learning(clock::get);
        for (int second = 0; second < 20; second++) {
            passPerSecond(budget, 3);
        }
        assertThat(budget.rate()).as("6/s learned, the floor wins").isEqualTo(100.0);
        assertThat(BypassBudget.learning(250, clock::get).rate()).isEqualTo(250.0);
    }

    @Test
    void thePeakIsForgottenAfterFiveToSixMinutesOfAnswersButNotDuringAnOutage() {
        BypassBudget budget = BypassBudget.learning(clock::get);
        passPerSecond(budget, 1_000);
        for (int second = 0; second < 60; second++) {
            passPerSecond(budget, 200);
        }
        assertThat(budget.rate()).isEqualTo(2_000.0);

        // An outage of half an hour: no answers, nothing learned, nothing forgotten.
        clock.addAndGet(30 * 60 * SECOND);
        assertThat(budget.rate()).as("after a long outage, still the rate learned before it").isEqualTo(2_000.0);

        // Answers again, at 200/s: the spike stays for a minute of answers, and leaves the window
        // within five to six minutes of them.
        for (int second = 0; second < 60; second++) {
            passPerSecond(budget, 200);
        }
        assertThat(budget.rate()).isEqualTo(2_000.0);
        for (int second = 0; second < 4 * 60; second++) {
            passPerSecond(budget, 200);
        }
        assertThat(budget.rate()).isIn(2_000.0, 400.0);
        for (int second = 0; second < 2 * 60; second++) {
            passPerSecond(budget, 200);
        }
        assertThat(budget.rate()).isEqualTo(400.0);
    }

    @Test
    void passedAnswersFromManyThreadsAreAllCounted() throws Exception {
        BypassBudget budget = BypassBudget.learning(clock::get);
        long second = clock.get();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                for (int i = 0; i < 25_000; i++) {
                    budget.passed(second);
                }
            });
            thread.start();
            threads.add(thread);
        }
        start.countDown();
        for (Thread thread : threads) {
            thread.join();
        }
        assertThat(budget.peakPassed()).isEqualTo(100_000);
        assertThat(budget.rate()).isEqualTo(200_000.0);
    }

    @Test
    void refusesARateOrFloorThatIsNotAPositiveNumber() {
        assertThatIllegalArgumentException().isThrownBy(() -> BypassBudget.fixed(0, clock::get))
                .withMessage("perSecond (0.0) must be a positive number");
        assertThatIllegalArgumentException().isThrownBy(() -> BypassBudget.fixed(Double.NaN, clock::get));
        assertThatIllegalArgumentException().isThrownBy(() -> BypassBudget.fixed(Double.POSITIVE_INFINITY, clock::get));
        assertThatIllegalArgumentException().isThrownBy(() -> BypassBudget.learning(-1, clock::get))
                .withMessage("floor (-1.0) must be a positive number");
        assertThatIllegalArgumentException().isThrownBy(() -> BypassBudget.learning(null));
    }

    /** {@code count} passed answers spread over the next second, then the clock moves on a second. */
    private void passPerSecond(BypassBudget budget, int count) {
        long start = clock.get();
        for (int i = 0; i < count; i++) {
            budget.passed(start + i * (SECOND / (count + 1)));
        }
        clock.set(start + SECOND);
    }

    /** Of {@code calls} bypasses asked at one instant, how many the budget lets go. */
    private static long bypassedNow(BypassBudget budget, int calls) {
        long passed = 0;
        for (int i = 0; i < calls; i++) {
            if (budget.tryBypass()) {
                passed++;
            }
        }
        return passed;
    }

    /** Bypasses asked every {@code everyNanos} for {@code duration}: how many the budget lets go. */
    private long flood(BypassBudget budget, long duration, long everyNanos) {
        long end = clock.get() + duration;
        long passed = 0;
        while (clock.get() < end) {
            if (budget.tryBypass()) {
                passed++;
            }
            clock.addAndGet(everyNanos);
        }
        return passed;
    }
}
