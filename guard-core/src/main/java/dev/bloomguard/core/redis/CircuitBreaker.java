package dev.bloomguard.core.redis;

import static com.google.common.base.Preconditions.checkArgument;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Stops paying the Redis timeout while Redis is down: after {@code failureThreshold} failures
 * in a row it opens, and calls fail at once (microseconds) for {@code openDuration}; then one
 * call at a time is let through as a probe, and the first success closes it again.
 *
 * <p>Shared by every filter of one Redis: they fail together.
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

    private static final long CLOSED = 0;

    private final int failureThreshold;
    private final long openNanos;
    private final AtomicInteger consecutiveFailures = new AtomicInteger();
    private final AtomicBoolean probing = new AtomicBoolean();
    private volatile long openUntil = CLOSED;

    private CircuitBreaker(int failureThreshold, long openNanos) {
        this.failureThreshold = failureThreshold;
        this.openNanos = openNanos;
    }

    public static CircuitBreaker create(int failureThreshold, Duration openDuration) {
        checkArgument(failureThreshold >= 1, "failure threshold (%s) must be at least 1", failureThreshold);
        checkArgument(openDuration != null && openDuration.toNanos() > 0, "open duration (%s) must be positive",
                openDuration);
        return new CircuitBreaker(failureThreshold, openDuration.toNanos());
    }

    /** True when a call may go to Redis; the caller must then report {@link #onSuccess} or {@link #onFailure}. */
    public boolean tryAcquire() {
        long until = openUntil;
        if (until == CLOSED) {
            return true;
        }
        if (System.nanoTime() - until < 0) {
            return false;
        }
        return probing.compareAndSet(false, true);
    }

    /**
     * Writes only what is not already so: every successful call comes here, from every thread,
     * and unconditional writes of shared fields would make the closed state's fast path contend.
     */
    public void onSuccess() {
        if (consecutiveFailures.get() != 0) {
            consecutiveFailures.set(0);
        }
        if (openUntil != CLOSED) {
            openUntil = CLOSED;
        }
        if (probing.get()) {
            probing.set(false);
        }
    }

    public void onFailure() {
        int failures = consecutiveFailures.incrementAndGet();
        if (failures >= failureThreshold || probing.get()) {
            long until = System.nanoTime() + openNanos;
            openUntil = until == CLOSED ? 1 : until;
        }
        probing.set(false);
    }

    public State state() {
        long until = openUntil;
        if (until == CLOSED) {
            return State.CLOSED;
        }
        return System.nanoTime() - until < 0 ? State.OPEN : State.HALF_OPEN;
    }
}
