package dev.bloomguard.core.redis;

import java.time.Duration;

/**
 * A stopwatch on the instance's running time, as a Redis call's deadline counts it: wall time less
 * what the pause meter ({@link InstancePauses}) saw meanwhile. {@code redis-timeout} bounds
 * Redis's time, not the instance's: time this process was paused, or too busy to read a reply
 * (a context that just started, a garbage collection, a busy CI host), is not Redis's, and a call
 * may take that much longer on the wall clock, up to {@link #MAX_PAUSE_ALLOWANCE} more. Tests that
 * bound a call by {@code redis-timeout} bound this, and the wall clock by the allowance.
 *
 * <p>In {@code dev.bloomguard.core.redis}, in the starter's tests, to read the package's meter
 * without making it public API.
 */
public final class RunningTime {

    /** The most a call waits beyond its timeout on the wall clock for the instance's own pauses. */
    public static final Duration MAX_PAUSE_ALLOWANCE = CallDeadline.MAX_PAUSE_ALLOWANCE;

    private final long started;
    private final long pausedBefore;
    private long wall = -1;
    private long running = -1;

    private RunningTime() {
        this.started = System.nanoTime();
        this.pausedBefore = InstancePauses.shared().pausedNanos(started);
    }

    public static RunningTime start() {
        return new RunningTime();
    }

    /** Stops the watch: {@link #running} and {@link #wall} are from here on those of the call between. */
    public RunningTime stop() {
        long now = System.nanoTime();
        wall = now - started;
        running = Math.max(0, wall - (InstancePauses.shared().pausedNanos(now) - pausedBefore));
        return this;
    }

    /** Nanoseconds between start and stop that the process ran, its pauses left out. */
    public long running() {
        check();
        return running;
    }

    /** Nanoseconds between start and stop on the wall clock. */
    public long wall() {
        check();
        return wall;
    }

    private void check() {
        if (wall < 0) {
            throw new IllegalStateException("the watch was not stopped");
        }
    }
}
