package dev.bloomguard.core.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One Redis call's deadline on the process's running time: {@code timeout} after it began, not
 * counting what {@link InstancePauses} saw, and never more than {@link #MAX_PAUSE_ALLOWANCE}
 * beyond the timeout on the wall clock. {@link RedisCalls} waits on it, blocking or not.
 */
final class CallDeadline {

    /**
     * The most a call waits beyond its timeout for time the process spent paused: a longer pause
     * is an outage of the instance's own, and the calls in flight during it fail.
     */
    static final Duration MAX_PAUSE_ALLOWANCE = Duration.ofSeconds(1);

    /**
     * Checks asynchronous calls' deadlines: one daemon thread, as the JDK's own for
     * {@code orTimeout}, whose tasks only look at a clock and complete a future.
     */
    private static final ScheduledThreadPoolExecutor WATCHER = new ScheduledThreadPoolExecutor(1, runnable -> {
        Thread thread = new Thread(runnable, "bloomguard-redis-deadline");
        thread.setDaemon(true);
        return thread;
    });

    private final InstancePauses pauses;
    private final long started;
    private final long pausedBefore;
    private final long timeoutNanos;

    CallDeadline(InstancePauses pauses, Duration timeout) {
        this.pauses = pauses;
        this.started = System.nanoTime();
        this.pausedBefore = pauses.pausedNanos(started);
        this.timeoutNanos = timeout.toNanos();
    }

    /** How long the call has taken by {@code now}, the process's pauses left out. */
    long runningNanos(long now) {
        return Math.max(0, now - started - (pauses.pausedNanos(now) - pausedBefore));
    }

    long remainingNanos(long now) {
        long wallLeft = started + timeoutNanos + MAX_PAUSE_ALLOWANCE.toNanos() - now;
        return Math.min(timeoutNanos - runningNanos(now), wallLeft);
    }

    boolean passed(long now) {
        return remainingNanos(now) <= 0;
    }

    /**
     * Fails {@code replies} with a {@link TimeoutException} once this deadline has passed, as
     * {@code orTimeout} does on the wall clock; on time the process spent paused, it looks again later.
     */
    void watch(CompletableFuture<?> replies) {
        WATCHER.schedule(() -> {
            if (replies.isDone()) {
                return;
            }
            if (passed(System.nanoTime())) {
                replies.completeExceptionally(new TimeoutException());
            }
            else {
                watch(replies);
            }
        }, Math.max(0, remainingNanos(System.nanoTime())), TimeUnit.NANOSECONDS);
    }
}
