package dev.bloomguard.core.redis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.LockSupport;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;

/**
 * How long this process could not read Redis's replies: stopped ({@code SIGSTOP}, a container's
 * CPU quota spent), paused for garbage collection, or so busy that the Redis client's I/O thread
 * waited for a CPU while a reply sat in its socket. A timeout measured on the caller's clock
 * counts all of that as Redis being slow, although Redis answered in a millisecond; so the
 * deadlines of {@link RedisCalls} and the breaker's accounting subtract what this meter saw, and
 * measure Redis.
 *
 * <p>One daemon thread per JVM wakes every {@link #TICK_NANOS} and measures two things: by how
 * much it woke late itself (the whole process stopped or paused), and, for each I/O event loop
 * a Redis client {@link #watch registered}, how long a task it submitted waits before the loop
 * runs it (the thread that reads replies was busy or starved). Delays under {@link #NOISE_NANOS}
 * are a scheduler's ordinary jitter and do not count. A delay still in progress counts as far as
 * it went. The reading is the sum of what every source saw: a pause that every source saw counts
 * several times, which makes a deadline wait longer for a reply that never comes, never give up
 * on one that is there. Costs a wake-up and a task per event loop every 5 ms, and each Redis
 * call a few volatile reads.
 */
final class InstancePauses {

    /** How often the meter wakes. */
    static final long TICK_NANOS = 5_000_000;

    /** A delay that is a scheduler's ordinary jitter, not a pause. */
    static final long NOISE_NANOS = 2_000_000;

    private static final InstancePauses SHARED = new InstancePauses();

    /** The meter's own lateness so far, and when its next tick is due: one immutable reading per tick. */
    private record Reading(long pausedNanos, long nextTickDue) {
    }

    private volatile Reading reading = new Reading(0, System.nanoTime() + TICK_NANOS);
    /** The event loops measured: an array read without allocating on every call, replaced when one comes or goes. */
    private volatile LoopProbe[] loops = new LoopProbe[0];

    private InstancePauses() {
        Thread meter = new Thread(this::run, "bloomguard-pause-meter");
        meter.setDaemon(true);
        meter.start();
    }

    static InstancePauses shared() {
        return SHARED;
    }

    /** Measures the event loops of {@code group} from now on, until they refuse tasks (shut down). */
    synchronized void watch(EventLoopGroup group) {
        List<LoopProbe> next = new ArrayList<>(Arrays.asList(loops));
        for (EventExecutor loop : group) {
            if (next.stream().noneMatch(probe -> probe.loop == loop)) {
                next.add(new LoopProbe(loop));
            }
        }
        loops = next.toArray(LoopProbe[]::new);
    }

    private synchronized void forget(LoopProbe probe) {
        loops = Arrays.stream(loops).filter(other -> other != probe).toArray(LoopProbe[]::new);
    }

    /**
     * How long the process has been paused in all, as of {@code nowNanos} ({@link System#nanoTime()}):
     * the difference of two readings is at least how long it was paused in between.
     */
    long pausedNanos(long nowNanos) {
        Reading current = reading;
        long paused = current.pausedNanos() + late(nowNanos - current.nextTickDue());
        LoopProbe[] measured = loops;
        for (int i = 0; i < measured.length; i++) {
            paused += measured[i].pausedNanos(nowNanos);
        }
        return paused;
    }

    private void run() {
        while (true) {
            LockSupport.parkNanos(TICK_NANOS);
            long now = System.nanoTime();
            Reading last = reading;
            reading = new Reading(last.pausedNanos() + late(now - last.nextTickDue()), now + TICK_NANOS);
            for (LoopProbe loop : loops) {
                if (!loop.probe(now)) {
                    forget(loop);
                }
            }
        }
    }

    private static long late(long lateness) {
        return lateness > NOISE_NANOS ? lateness : 0;
    }

    /**
     * One event loop's delays: at most one probe task in flight, submitted by the meter, which
     * adds how long it waited when the loop runs it. The loop's thread is the only writer of
     * {@code pausedNanos}; {@code submittedAt} is set by the meter and cleared by the loop.
     */
    private static final class LoopProbe implements Runnable {

        private final EventExecutor loop;
        /** When the probe in flight was submitted, or 0 when none is. */
        private volatile long submittedAt;
        private volatile long pausedNanos;

        LoopProbe(EventExecutor loop) {
            this.loop = loop;
        }

        /** Submits a probe unless one is in flight; false once the loop refuses tasks. */
        boolean probe(long now) {
            if (submittedAt != 0) {
                return true;
            }
            submittedAt = now == 0 ? 1 : now;
            try {
                loop.execute(this);
                return true;
            }
            catch (RejectedExecutionException ex) {
                return false;
            }
        }

        @Override
        public void run() {
            long waited = System.nanoTime() - submittedAt;
            pausedNanos += late(waited);
            submittedAt = 0;
        }

        /** Read in flight first: a probe finishing in between is counted twice, never missed. */
        long pausedNanos(long now) {
            long inFlight = submittedAt;
            long paused = pausedNanos;
            return inFlight == 0 ? paused : paused + late(now - inFlight);
        }
    }
}
