package dev.bloomguard.spring.warmup;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.bloomguard.core.IncompleteLoadException;
import dev.bloomguard.core.LoadRefusedException;
import dev.bloomguard.core.LoadReport;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.upkeep.Backoff;
import dev.bloomguard.core.upkeep.FilterUpkeep;
import dev.bloomguard.spring.BloomGuardException;
import dev.bloomguard.spring.metrics.GuardMetrics;
import dev.bloomguard.spring.metrics.LoadOutcome;
import dev.bloomguard.spring.warmup.FilterWarmer.Failure;
import dev.bloomguard.spring.warmup.FilterWarmer.Task;

/**
 * The load runner of a {@link FilterWarmer}: one load of a filter at a time in this instance
 * ({@link #submit}), under the filter's cross-instance load lock or waiting for another
 * instance's load ({@link #load}), then its retries with backoff, its refusals and the last
 * failure. It owns what a load leaves behind (running loads, back-off, failures, the start of the
 * last load's query for the catch-up), so that every path to a load shares one set of rules.
 */
final class FilterLoads {

    private static final Logger log = LoggerFactory.getLogger(FilterWarmer.class);
    static final Duration FIRST_RETRY = Duration.ofSeconds(1);
    static final Duration LAST_RETRY = Duration.ofMinutes(1);
    /** Retries of a failed load: from {@link #FIRST_RETRY} doubling to {@link #LAST_RETRY}, jittered. */
    private static final Backoff BACKOFF = Backoff.of(FIRST_RETRY, LAST_RETRY);
    /** How long a filter whose load was refused as too small waits before it is read again, without a rebuild interval. */
    static final Duration REFUSED_RETRY = Duration.ofMinutes(10);

    /** Loads tried, under one hold of the lock, while Redis keeps losing part of them before the swap. */
    private static final int INCOMPLETE_LOAD_ATTEMPTS = 3;
    private static final Duration INCOMPLETE_LOAD_PAUSE = Duration.ofMillis(500);
    /** Jittered: instances whose loads a flush cut short together do not query again together. */
    private static final Backoff INCOMPLETE_LOAD_BACKOFF = Backoff.of(INCOMPLETE_LOAD_PAUSE,
            INCOMPLETE_LOAD_PAUSE.multipliedBy(1L << (INCOMPLETE_LOAD_ATTEMPTS - 2)));

    private final WarmerThreads threads;
    private final SourceTrust trust;
    private final Duration lockTtl;
    private final Duration waitPoll;
    private final Supplier<GuardMetrics> metrics;
    private final Map<String, CompletableFuture<LoadReport>> running = new ConcurrentHashMap<>();
    private final Map<String, Long> retryNotBefore = new ConcurrentHashMap<>();
    /** Per filter, the failed loads in a row, for the jittered back-off of {@link #BACKOFF}. */
    private final Map<String, Integer> failedAttempts = new ConcurrentHashMap<>();
    private final Map<String, Failure> lastFailures = new ConcurrentHashMap<>();

    FilterLoads(WarmerThreads threads, SourceTrust trust, Duration lockTtl, Duration waitPoll,
            Supplier<GuardMetrics> metrics) {
        this.threads = threads;
        this.trust = trust;
        this.lockTtl = lockTtl;
        this.waitPoll = waitPoll;
        this.metrics = metrics;
    }

    /** The load of {@code filter} running or waiting in this instance, or null. */
    CompletableFuture<LoadReport> runningLoad(String filter) {
        return running.get(filter);
    }

    /** Counts {@code load} as the one running for {@code filter}; false when one already is. */
    boolean claim(String filter, CompletableFuture<LoadReport> load) {
        return running.putIfAbsent(filter, load) == null;
    }

    void release(String filter, CompletableFuture<LoadReport> load) {
        running.remove(filter, load);
    }

    /** Whether a failed or refused load of {@code filter} is backing off. */
    boolean backingOff(String filter) {
        Long notBefore = retryNotBefore.get(filter);
        return notBefore != null && System.nanoTime() - notBefore < 0;
    }

    Optional<Failure> lastFailure(String filter) {
        return Optional.ofNullable(lastFailures.get(filter));
    }


    CompletableFuture<LoadReport> submit(Task task, Supplier<LoadReport> work) {
        String name = task.filter().name();
        CompletableFuture<LoadReport> fresh = new CompletableFuture<>();
        CompletableFuture<LoadReport> existing = running.putIfAbsent(name, fresh);
        if (existing != null) {
            return existing;
        }
        ExecutorService executor = threads.loads();
        if (executor == null || executor.isShutdown()) {
            running.remove(name, fresh);
            fresh.completeExceptionally(new IllegalStateException("bloom-guard is not running"));
            return fresh;
        }
        Runnable attempt = () -> {
            try {
                LoadReport report = work.get();
                retryNotBefore.remove(name);
                failedAttempts.remove(name);
                lastFailures.remove(name);
                running.remove(name, fresh);
                fresh.complete(report);
            }
            catch (Throwable ex) {
                Duration delay = BACKOFF.delay(failedAttempts.merge(name, 1, Integer::sum));
                LoadRefusedException refused = refusal(ex);
                if (refused != null) {
                    // A refusal is not a passing fault: reading the whole table again soon would be refused again.
                    delay = task.rebuildInterval().isZero() ? REFUSED_RETRY : task.rebuildInterval();
                    refused(task, refused, delay);
                }
                else {
                    retryNotBefore.put(name, System.nanoTime() + delay.toNanos());
                    lastFailures.put(name, new Failure(ex.getMessage(), false, Instant.now()));
                    log.error("Filter '{}': load failed ({}); checks stay bypassed, next try in {} ms", name,
                            ex.getMessage(), delay.toMillis());
                }
                running.remove(name, fresh);
                fresh.completeExceptionally(ex);
                scheduleRetry(task, delay);
            }
        };
        try {
            executor.execute(attempt);
        }
        catch (RejectedExecutionException ex) {
            running.remove(name, fresh);
            fresh.completeExceptionally(new IllegalStateException("bloom-guard is not running", ex));
        }
        return fresh;
    }

    /**
     * A load too small to trust was not swapped in: the live filter stays, and blocks again if it
     * came from this task's own query. The next try waits for {@code delay} (the next rebuild).
     */
    void refused(Task task, LoadRefusedException refused, Duration delay) {
        String name = task.filter().name();
        retryNotBefore.put(name, System.nanoTime() + delay.toNanos());
        lastFailures.put(name, new Failure(refused.getMessage(), true, Instant.now()));
        try {
            if (task.filter().isReady() && isFromOwnQuery(task)) {
                trust.trust(task.filter());
            }
        }
        catch (RuntimeException ex) {
            log.debug("Filter '{}': could not read the live filter's source: {}", name, ex.getMessage());
        }
        log.error("{}. If the table really shrank, force the rebuild with FilterWarmer.rebuild(\"{}\", true) or"
                + " raise bloom-guard.filters.{}.rebuild.max-shrink; next try in {} s", refused.getMessage(), name, name,
                delay.toSeconds());
    }

    static LoadRefusedException refusal(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof LoadRefusedException refused) {
                return refused;
            }
        }
        return null;
    }

    private void scheduleRetry(Task task, Duration delay) {
        ScheduledExecutorService current = threads.scheduler();
        if (current != null && !current.isShutdown()) {
            current.schedule(() -> {
                if (!trust.trusts(task.filter().name()) || !task.filter().isReady()) {
                    submit(task, () -> load(task, false));
                }
            }, delay.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** Whether the live bitmap was loaded from this task's query (another instance's load of another query is not). */
    static boolean isFromOwnQuery(Task task) {
        return task.filter().liveSourceId().filter(task.source().fingerprint(task.filter())::equals).isPresent();
    }

    /**
     * Loads under the lock. If another instance holds it, waits for it to finish: returns when
     * the filter is complete and unlocked, or takes the lock when the holder went away without
     * finishing.
     */
    LoadReport load(Task task, boolean force) {
        return load(task, force, true);
    }

    /**
     * @param anotherInstancesWill whether a load by another instance, which may have begun before
     *     this call, will do; false for a rebuild, which waits for it and then loads itself
     */
    LoadReport load(Task task, boolean force, boolean anotherInstancesWill) {
        RedisBloomFilter filter = task.filter();
        boolean waitedForOther = false;
        while (true) {
            Optional<RedisBloomFilter.LoadLease> lease = filter.tryLockForLoad(lockTtl, threads.scheduler());
            if (lease.isPresent()) {
                try (RedisBloomFilter.LoadLease held = lease.get()) {
                    return loadNow(task, force);
                }
            }
            if (!waitedForOther) {
                log.info("Filter '{}': {} is loading it; waiting", filter.name(), filter.lockHolder().orElse("another instance"));
                waitedForOther = true;
            }
            sleep(waitPoll);
            if (anotherInstancesWill && filter.lockHolder().isEmpty() && filter.isReady() && isFromOwnQuery(task)) {
                // Its generation was loaded by the other instance: look again now, not at the next heartbeat.
                FilterUpkeep.heartbeat(filter);
                trust.trust(filter);
                log.info("Filter '{}': loaded by another instance", filter.name());
                return null;
            }
        }
    }

    private LoadReport loadNow(Task task, boolean force) {
        RedisBloomFilter filter = task.filter();
        log.info("Filter '{}': loading from {} ({})", filter.name(), task.source().description(), filter.geometry());
        long started = System.nanoTime();
        try {
            LoadReport report = loadComplete(task, force);
            metrics.get().recordLoad(filter.name(), LoadOutcome.SWAPPED, report.keys(), System.nanoTime() - started);
            trust.trust(filter);
            log.info("Filter '{}': loaded {} keys in {} ms ({} keys/s, {} journaled adds replayed)", filter.name(),
                    report.keys(), report.duration().toMillis(), Math.round(report.keysPerSecond()),
                    report.replayedAdds());
            return report;
        }
        catch (RuntimeException ex) {
            LoadRefusedException refused = refusal(ex);
            metrics.get().recordLoad(filter.name(), refused == null ? LoadOutcome.FAILED : LoadOutcome.REFUSED,
                    refused == null ? -1 : refused.keys(), System.nanoTime() - started);
            throw new BloomGuardException("Filter '" + filter.name() + "': load failed: " + ex.getMessage(), ex);
        }
    }

    /**
     * A load that Redis lost part of before its swap (a flush, an eviction, a failover) was not
     * swapped in; a fresh query includes what was lost, so it runs again, a few times, pausing
     * longer each time.
     */
    static LoadReport loadComplete(Task task, boolean force) {
        return loadComplete(task.filter().name(), () -> KeySource.load(task.source(), task.filter(), force));
    }

    /** {@code load}, again while it throws {@link IncompleteLoadException}, up to the same attempts as a task's load. */
    static LoadReport loadComplete(String name, Supplier<LoadReport> load) {
        for (int attempt = 1;; attempt++) {
            try {
                return load.get();
            }
            catch (IncompleteLoadException ex) {
                if (attempt == INCOMPLETE_LOAD_ATTEMPTS) {
                    throw ex;
                }
                Duration pause = INCOMPLETE_LOAD_BACKOFF.delay(attempt);
                log.warn("Filter '{}': {}; loading again in {} ms", name, ex.getMessage(), pause.toMillis());
                sleep(pause);
            }
        }
    }

    static Duration age(Instant since) {
        return Duration.between(since, Instant.now());
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new BloomGuardException("interrupted while waiting to load", ex);
        }
    }
}
