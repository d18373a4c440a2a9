package dev.bloomguard.core.redis;

import static dev.bloomguard.core.internal.Arguments.checkArgument;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops paying the Redis timeout while Redis is down or failing often. It opens on either of:
 * <ul>
 * <li>{@code consecutiveFailures} failures in a row: Redis is down;</li>
 * <li>over the last {@code window} calls (once at least {@code minimumCalls} were made), a share
 * of failures of at least {@code failureRate}, or of calls slower than {@code slowCall} of at
 * least {@code slowCallRate}: Redis answers, but too often too late. Failures that alternate with
 * successes never make a run, so without this a Redis timing out 40 % of checks would cost every
 * caller its timeout, forever.</li>
 * </ul>
 * While open, calls fail at once (microseconds) for {@code openDuration}; then one call at a time
 * is let through as a probe, and the first success closes it again with an empty window.
 *
 * <p>Shared by every filter of one Redis: they fail together.
 *
 * <p>Each change of state is one atomic write of one field, so that {@link #onTransition}'s
 * listeners hear every transition exactly once, however many threads report at the same moment:
 * CLOSED to OPEN when it opens, OPEN to HALF_OPEN when the first probe is let through (not when
 * the open period merely ends: {@link #state()} says HALF_OPEN from then on), HALF_OPEN to OPEN
 * when the probe fails, HALF_OPEN or OPEN to CLOSED on a success.
 */
public final class CircuitBreaker {

    /** What the breaker lets through. */
    public enum State {
        /** Calls go to Redis. */
        CLOSED,
        /** Calls fail at once. */
        OPEN,
        /** The open period is over; one probe at a time goes to Redis. */
        HALF_OPEN
    }

    /** Hears the breaker's transitions; see {@link #onTransition}. */
    @FunctionalInterface
    public interface TransitionListener {

        void onTransition(State from, State to);
    }

    /** A listener {@link #onTransition} registered; closing it removes the listener. */
    @FunctionalInterface
    public interface Subscription extends AutoCloseable {

        @Override
        void close();
    }

    private static final Logger log = LoggerFactory.getLogger(CircuitBreaker.class);
    private static final VarHandle OPEN_UNTIL;

    static {
        try {
            OPEN_UNTIL = MethodHandles.lookup().findVarHandle(CircuitBreaker.class, "openUntil", long.class);
        }
        catch (ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private static final long CLOSED = 0;
    /** The open period is over and a probe was let through: others fail at once until it reports. */
    private static final long PROBING = Long.MIN_VALUE;
    private static final int FAILED = 1;
    private static final int SLOW = 2;

    private final Settings settings;
    private final long openNanos;
    private final long slowCallNanos;
    private final AtomicInteger consecutiveFailures = new AtomicInteger();
    /** {@link #CLOSED}, {@link #PROBING}, or when the open period ends ({@code System.nanoTime()}). */
    private volatile long openUntil = CLOSED;
    private final List<TransitionListener> listeners = new CopyOnWriteArrayList<>();
    /** The last {@code window} outcomes (FAILED and SLOW bits), and their counts. */
    private final AtomicIntegerArray outcomes;
    private final AtomicLong calls = new AtomicLong();
    private final AtomicInteger failedInWindow = new AtomicInteger();
    private final AtomicInteger slowInWindow = new AtomicInteger();

    private CircuitBreaker(Settings settings) {
        this.settings = settings;
        this.openNanos = settings.openDuration().toNanos();
        this.slowCallNanos = settings.slowCall().toNanos();
        this.outcomes = new AtomicIntegerArray(settings.window());
    }

    /**
     * When the breaker opens and for how long.
     *
     * @param consecutiveFailures failures in a row that open it
     * @param openDuration how long calls fail at once before a probe
     * @param window how many of the latest calls the rates are taken over
     * @param minimumCalls calls needed in the window before a rate can open it
     * @param failureRate share of failed calls (timeouts, lost connections) in the window that opens it, in (0, 1]
     * @param slowCall a successful call that took longer than this counts as slow
     * @param slowCallRate share of slow calls in the window that opens it, in (0, 1]
     */
    public record Settings(int consecutiveFailures, Duration openDuration, int window, int minimumCalls,
            double failureRate, Duration slowCall, double slowCallRate) {

        public Settings {
            checkArgument(consecutiveFailures >= 1, "failure threshold (%s) must be at least 1", consecutiveFailures);
            checkArgument(openDuration != null && openDuration.toNanos() > 0, "open duration (%s) must be positive",
                    openDuration);
            checkArgument(window >= 1, "window (%s) must be at least 1 call", window);
            checkArgument(minimumCalls >= 1 && minimumCalls <= window,
                    "minimum calls (%s) must be between 1 and the window (%s)", minimumCalls, window);
            checkArgument(failureRate > 0 && failureRate <= 1, "failure rate (%s) must be in (0, 1]", failureRate);
            checkArgument(slowCall != null && slowCall.toNanos() > 0, "slow call (%s) must be positive", slowCall);
            checkArgument(slowCallRate > 0 && slowCallRate <= 1, "slow call rate (%s) must be in (0, 1]", slowCallRate);
        }

        /**
         * 5 failures in a row, or over the last 100 calls (at least 20) a quarter failed or half
         * took longer than a second; open for 1 second. A quarter: one failed check in a hundred
         * is a network's bad moment, forty in a hundred is a Redis that costs every fourth caller
         * its whole timeout.
         */
        public static Settings defaults() {
            return new Settings(5, Duration.ofSeconds(1), 100, 20, 0.25, Duration.ofSeconds(1), 0.5);
        }
    }

    public static CircuitBreaker create(Settings settings) {
        checkArgument(settings != null, "settings must not be null");
        return new CircuitBreaker(settings);
    }

    /** {@link Settings#defaults()} but for the run of failures that opens it and how long it stays open. */
    public static CircuitBreaker create(int failureThreshold, Duration openDuration) {
        Settings defaults = Settings.defaults();
        return create(new Settings(failureThreshold, openDuration, defaults.window(), defaults.minimumCalls(),
                defaults.failureRate(), defaults.slowCall(), defaults.slowCallRate()));
    }

    public Settings settings() {
        return settings;
    }

    /**
     * Tells {@code listener} of each transition from now on, on the thread that made it (a
     * caller's, or a Redis client's I/O thread): it must return at once. What it throws is logged
     * and dropped; the breaker and the call go on. Two transitions close together may reach it
     * from two threads out of order; each says where it came from.
     */
    public Subscription onTransition(TransitionListener listener) {
        checkArgument(listener != null, "listener must not be null");
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    /** True when a call may go to Redis; the caller must then report {@link #onSuccess} or {@link #onFailure}. */
    public boolean tryAcquire() {
        long until = openUntil;
        if (until == CLOSED) {
            return true;
        }
        if (until == PROBING || System.nanoTime() - until < 0 || !OPEN_UNTIL.compareAndSet(this, until, PROBING)) {
            return false;
        }
        try {
            transition(State.OPEN, State.HALF_OPEN);
        }
        catch (VirtualMachineError fatal) {
            OPEN_UNTIL.compareAndSet(this, PROBING, until); // give the probe slot back: no call will report
            throw fatal;
        }
        return true;
    }

    /** A call that took no time to speak of succeeded. */
    public void onSuccess() {
        onSuccess(0);
    }

    /**
     * A call succeeded (or Redis answered it with an error) after {@code elapsedNanos}. Writes
     * the breaker's state only when it is not already so: every successful call comes here, from
     * every thread, and unconditional writes of shared fields would make the closed state's fast
     * path contend. The window costs one counter increment and one slot write per call, next to
     * a Redis round trip.
     */
    public void onSuccess(long elapsedNanos) {
        if (consecutiveFailures.get() != 0) {
            consecutiveFailures.set(0);
        }
        boolean probe = false;
        for (long until = openUntil; until != CLOSED; until = openUntil) {
            if (OPEN_UNTIL.compareAndSet(this, until, CLOSED)) {
                clearWindow();
                probe = until == PROBING;
                transition(probe ? State.HALF_OPEN : State.OPEN, State.CLOSED);
                break;
            }
        }
        if (!probe) {
            record(elapsedNanos > slowCallNanos ? SLOW : 0);
        }
    }

    /** A call timed out or lost its connection. */
    public void onFailure() {
        boolean rateOver = record(FAILED);
        int failures = consecutiveFailures.incrementAndGet();
        if (failures >= settings.consecutiveFailures() || openUntil == PROBING || rateOver) {
            open();
        }
    }

    public State state() {
        long until = openUntil;
        if (until == CLOSED) {
            return State.CLOSED;
        }
        return until != PROBING && System.nanoTime() - until < 0 ? State.OPEN : State.HALF_OPEN;
    }

    /** Opens the breaker, or keeps it open longer: a transition only from CLOSED or a probe. */
    private void open() {
        long until = System.nanoTime() + openNanos;
        long before = (long) OPEN_UNTIL.getAndSet(this, until == CLOSED || until == PROBING ? until + 1 : until);
        if (before == CLOSED || before == PROBING) {
            transition(before == CLOSED ? State.CLOSED : State.HALF_OPEN, State.OPEN);
        }
    }

    private void transition(State from, State to) {
        for (TransitionListener listener : listeners) {
            try {
                listener.onTransition(from, to);
            }
            catch (Throwable ex) {
                // Any Throwable: thrown out of tryAcquire after the probe slot was taken, it would
                // leave no call to report, and the breaker in PROBING for good.
                if (ex instanceof VirtualMachineError fatal) {
                    throw fatal;
                }
                log.warn("Circuit breaker: a listener failed on {} -> {}: {}", from, to, ex.toString());
            }
        }
    }

    /**
     * Puts one outcome in the window, and opens the breaker when a rate is over its threshold.
     * The counts are kept with the outcomes they replace, without a lock: under concurrent calls
     * they may lag by a call or two, which moves a threshold by as little.
     *
     * @return whether the failure rate is over its threshold
     */
    private boolean record(int outcome) {
        long call = calls.getAndIncrement();
        int previous = outcomes.getAndSet((int) (call % settings.window()), outcome);
        int failed = (outcome & FAILED) - (previous & FAILED);
        int slowDelta = ((outcome & SLOW) - (previous & SLOW)) / SLOW;
        int failedNow = failed == 0 ? failedInWindow.get() : failedInWindow.addAndGet(failed);
        int slowNow = slowDelta == 0 ? slowInWindow.get() : slowInWindow.addAndGet(slowDelta);
        long recorded = Math.min(call + 1, settings.window());
        if (recorded < settings.minimumCalls()) {
            return false;
        }
        if (slowNow >= settings.slowCallRate() * recorded && openUntil == CLOSED) {
            open();
        }
        return failedNow >= settings.failureRate() * recorded;
    }

    private void clearWindow() {
        calls.set(0);
        for (int i = 0; i < outcomes.length(); i++) {
            outcomes.set(i, 0);
        }
        failedInWindow.set(0);
        slowInWindow.set(0);
    }
}
