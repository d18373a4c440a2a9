package dev.bloomguard.testsupport;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Waiting in tests for what another thread, instance or server does: a condition polled until it
 * holds, a latch, a pause. Each wait has a bound and fails the test with what it waited for, so a
 * test that waits never hangs the build and never passes by timing out.
 */
public final class Await {

    /** How often a condition is asked again: short against the seconds the bounds allow. */
    private static final Duration POLL = Duration.ofMillis(20);

    private Await() {
    }

    /**
     * Polls {@code condition} until it holds.
     *
     * @throws AssertionError naming {@code what} when it does not hold within {@code timeout}
     */
    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        until(what, timeout, POLL, condition);
    }

    /**
     * Polls {@code condition} every {@code interval} until it holds: for a condition that does work
     * each time it is asked (creates a row, checks every row so far), at the pace the test wants.
     *
     * @throws AssertionError naming {@code what} when it does not hold within {@code timeout}
     */
    public static void until(String what, Duration timeout, Duration interval, BooleanSupplier condition) {
        until(what, timeout, interval, condition::getAsBoolean, Boolean::booleanValue);
    }

    /**
     * Asks {@code ask} until its answer satisfies {@code done}, and returns that answer.
     *
     * @throws AssertionError naming {@code what} and the last answer when none satisfies
     *     {@code done} within {@code timeout}
     */
    public static <T> T until(String what, Duration timeout, Supplier<T> ask, Predicate<? super T> done) {
        return until(what, timeout, POLL, ask, done);
    }

    private static <T> T until(String what, Duration timeout, Duration interval, Supplier<T> ask, Predicate<? super T> done) {
        long deadline = System.nanoTime() + timeout.toNanos();
        T answer = ask.get();
        while (!done.test(answer)) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("Timed out after " + timeout + " waiting for: " + what + " (last answer: " + answer + ")");
            }
            sleep(interval.toMillis());
            answer = ask.get();
        }
        return answer;
    }

    /**
     * Waits for {@code latch} to reach zero.
     *
     * @throws AssertionError when it does not within {@code timeout}
     */
    public static void latch(CountDownLatch latch, Duration timeout) {
        try {
            if (!latch.await(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                throw new AssertionError("Timed out after " + timeout + " waiting for " + latch);
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new AssertionError("Interrupted waiting for " + latch, ex);
        }
    }

    /** {@link Thread#sleep}, with an interrupt turned into a failure (the interrupt flag kept). */
    public static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new AssertionError("Interrupted while sleeping", ex);
        }
    }
}
