package dev.bloomguard.spring.warmup;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import dev.bloomguard.core.LoadReport;
import dev.bloomguard.core.RedisBloomFilter;
import dev.bloomguard.spring.BloomGuardException;

/**
 * Fills filters from their warmup SQL when the application starts, before the web server
 * takes traffic. A blocking warmup runs on the starting thread and a failure stops startup; the
 * others run on a background thread, and until they finish their checks are bypassed (the
 * calls go through), unless a complete filter of the same geometry is already in Redis.
 */
public final class FilterWarmer implements SmartLifecycle {

    /** Before the web server starts (it starts in phase {@code DEFAULT_PHASE - 2048}). */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private static final Logger log = LoggerFactory.getLogger(FilterWarmer.class);

    /** One filter to warm. */
    public record Task(RedisBloomFilter filter, SqlKeySource source, boolean blocking) {
    }

    private final List<Task> tasks;
    private volatile ExecutorService executor;
    private volatile boolean running;

    public FilterWarmer(List<Task> tasks) {
        this.tasks = List.copyOf(tasks);
    }

    @Override
    public void start() {
        running = true;
        for (Task task : tasks) {
            if (task.blocking()) {
                warm(task);
            }
        }
        for (Task task : tasks) {
            if (!task.blocking()) {
                executor().submit(() -> {
                    try {
                        warm(task);
                    }
                    catch (RuntimeException ex) {
                        log.error("Filter '{}': warmup failed; its checks are bypassed until a load succeeds",
                                task.filter().name(), ex);
                    }
                });
            }
        }
    }

    /** Warms one filter now, on the calling thread. */
    public LoadReport warm(Task task) {
        RedisBloomFilter filter = task.filter();
        log.info("Filter '{}': warming from SQL ({})", filter.name(), filter.geometry());
        try {
            LoadReport report = task.source().loadInto(filter);
            log.info("Filter '{}': warmed {} keys in {} ms ({} keys/s, {} concurrent adds replayed)", filter.name(),
                    report.keys(), report.duration().toMillis(), Math.round(report.keysPerSecond()),
                    report.replayedAdds());
            return report;
        }
        catch (RuntimeException ex) {
            throw new BloomGuardException("Filter '" + filter.name() + "': warmup failed: " + ex.getMessage(), ex);
        }
    }

    private synchronized ExecutorService executor() {
        if (executor == null) {
            AtomicInteger threads = new AtomicInteger();
            executor = Executors.newFixedThreadPool(Math.min(2, tasks.size()), runnable -> {
                Thread thread = new Thread(runnable, "bloomguard-warmup-" + threads.incrementAndGet());
                thread.setDaemon(true);
                return thread;
            });
        }
        return executor;
    }

    @Override
    public synchronized void stop() {
        running = false;
        if (executor != null) {
            executor.shutdownNow();
            executor = null;
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    public List<Task> tasks() {
        return tasks;
    }
}
