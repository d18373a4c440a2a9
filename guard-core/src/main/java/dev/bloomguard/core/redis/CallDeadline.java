package dev.bloomguard.core.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisChannelHandler;

/**
 * One Redis call's deadline on the process's running time: {@code timeout} after it began, not
 * counting what {@link InstancePauses} saw, and never more than {@link #MAX_PAUSE_ALLOWANCE}
 * beyond the timeout on the wall clock. The allowance is for a reply that may already be on its
 * way: while the connection the call was {@link #sentOn sent on} is closed (Redis down, the
 * client reconnecting) none can be, and the deadline is the timeout on the wall clock, however
 * busy the process is meanwhile. {@link RedisCalls} waits on it, blocking or not.
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
    /** The connection the commands went to, once known; until then a reply may be on its way. */
    private volatile RedisChannelHandler<?, ?> connection;

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

    /** Records the connection the call's commands are written to; null when not known. */
    void sentOn(RedisChannelHandler<?, ?> connection) {
        this.connection = connection;
    }

    long remainingNanos(long now) {
        long wallLeft = started + timeoutNanos - now;
        RedisChannelHandler<?, ?> sentOn = connection;
        if (sentOn != null && !sentOn.isOpen()) {
            return wallLeft;
        }
        return Math.min(timeoutNanos - runningNanos(now), wallLeft + MAX_PAUSE_ALLOWANCE.toNanos());
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
