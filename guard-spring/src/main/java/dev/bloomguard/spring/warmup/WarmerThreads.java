package dev.bloomguard.spring.warmup;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads of a {@link FilterWarmer} and whether it runs: loads on a cached pool, schedules
 * on one thread, heartbeats on another. Held apart so that the load runner, the schedules and
 * the reactions read the same executors, created at {@code start} and shut down at {@code stop}.
 */
final class WarmerThreads {

    private volatile ExecutorService loads;
    private volatile ScheduledExecutorService scheduler;
    /**
     * Heartbeats of filter generations, on a thread of their own: a catch-up query stuck on a
     * database lock must not make this instance fall silent, which would let the others stop
     * counting it as a writer while it still adds.
     */
    private volatile ScheduledExecutorService heartbeats;
    private volatile boolean started;

    /** Creates the executors, then counts the warmer started. */
    void start() {
        loads = Executors.newCachedThreadPool(daemonThreads("bloomguard-load-"));
        scheduler = Executors.newSingleThreadScheduledExecutor(daemonThreads("bloomguard-schedule-"));
        heartbeats = Executors.newSingleThreadScheduledExecutor(daemonThreads("bloomguard-heartbeat-"));
        started = true;
    }

    /** Counts the warmer stopped; the executors run on until {@link #shutdown()}. */
    void stopping() {
        started = false;
    }

    void shutdown() {
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
        if (heartbeats != null) {
            heartbeats.shutdownNow();
        }
        if (loads != null) {
            loads.shutdownNow();
        }
    }

    boolean started() {
        return started;
    }

    ExecutorService loads() {
        return loads;
    }

    ScheduledExecutorService scheduler() {
        return scheduler;
    }

    ScheduledExecutorService heartbeats() {
        return heartbeats;
    }

    private static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
