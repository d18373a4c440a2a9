package dev.bloomguard.spring.warmup;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.bloomguard.core.LoadRefusedException;
import dev.bloomguard.core.LoadReport;
import dev.bloomguard.core.NotReadyCause;
import dev.bloomguard.core.filter.GrownGeneration;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.spring.metrics.GuardMetrics;
import dev.bloomguard.spring.metrics.LoadOutcome;
import dev.bloomguard.spring.warmup.FilterWarmer.Task;

/**
 * How a {@link FilterWarmer} answers what a filter tells it, off the schedules: a check that
 * found the filter not ready, and why ({@link #onNotReady}: a re-warm unless one runs, backs off,
 * or the filter is left to another query's instances) and a heartbeat that found a grown
 * generation to load ({@link #loadResized}). Called from checks' and heartbeats' threads, so each returns at
 * once and hands the work to the warmer's threads.
 */
final class FilterReactions {

    private static final Logger log = LoggerFactory.getLogger(FilterWarmer.class);

    private final Map<String, Task> tasks;
    private final WarmerThreads threads;
    private final SourceTrust trust;
    private final FilterLoads loads;
    private final FilterSchedules schedules;
    private final Duration lockTtl;
    private final Supplier<GuardMetrics> metrics;
    /** Until when ({@link System#nanoTime}) a failed load of a filter's resized generation is not tried again. */
    private final Map<String, Long> resizedNotBefore = new ConcurrentHashMap<>();
    /** When ({@link System#nanoTime}) a not-ready check last had such a filter looked at again. */
    private final Map<String, Long> foreignLookedAt = new ConcurrentHashMap<>();

    FilterReactions(Map<String, Task> tasks, WarmerThreads threads, SourceTrust trust, FilterLoads loads,
            FilterSchedules schedules, Duration lockTtl, Supplier<GuardMetrics> metrics) {
        this.tasks = tasks;
        this.threads = threads;
        this.trust = trust;
        this.loads = loads;
        this.schedules = schedules;
        this.lockTtl = lockTtl;
        this.metrics = metrics;
    }

    /**
     * See {@link FilterWarmer#onEvent}.
     *
     * @param cause why, as the check saw it; null when not known (a look again found it incomplete)
     */
    void onNotReady(RedisBloomFilter filter, NotReadyCause cause) {
        Task task = tasks.get(filter.name());
        if (!threads.started() || task == null || task.source() == null || !task.onStartup()
                || loads.runningLoad(filter.name()) != null) {
            return;
        }
        if (loads.backingOff(filter.name())) {
            return;
        }
        if (!trust.trusts(filter.name()) && schedules.leftToOtherQuery(filter.name())) {
            // Loaded from the other query of a rolling deploy, whose instances it protects:
            // reloading over it would only make them bypass (and soon reload over this one).
            // Unless Redis lost it meanwhile: looked at off the check's thread, once a second,
            // but not when the check's own reply said it is there, only suspended here.
            if (cause != NotReadyCause.SUSPENDED) {
                lookAgainAtForeignFilter(task);
            }
            return;
        }
        if (cause == NotReadyCause.SUSPENDED) {
            log.warn("Filter '{}' is not known to be built from its current warmup query; absent keys are let"
                    + " through until it is reloaded", filter.name());
        }
        else if (cause == NotReadyCause.REDIS_REWOUND) {
            log.warn("Filter '{}' lost adds when Redis went back in time; checks are bypassed until it is warm again",
                    filter.name());
        }
        else {
            log.warn("Filter '{}' is missing or incomplete in Redis; checks are bypassed until it is warm again",
                    filter.name());
        }
        loads.submit(task, () -> loads.load(task, false));
    }

    /** See {@link FilterWarmer#loadResized}. */
    void loadResized(GrownGeneration resized) {
        Task task = tasks.get(resized.name());
        ExecutorService executor = threads.loads();
        if (!threads.started() || task == null || task.source() == null || executor == null || executor.isShutdown()) {
            return;
        }
        String name = resized.name();
        Long notBefore = resizedNotBefore.get(name);
        if (notBefore != null && System.nanoTime() - notBefore < 0) {
            return;
        }
        CompletableFuture<LoadReport> fresh = new CompletableFuture<>();
        if (!loads.claim(name, fresh)) {
            return;
        }
        Runnable attempt = () -> {
            long begun = System.nanoTime();
            LoadReport report = null;
            try {
                Optional<RedisBloomFilter.LoadLease> lease = resized.tryLockForLoad(lockTtl, threads.scheduler());
                if (lease.isPresent()) {
                    try (RedisBloomFilter.LoadLease held = lease.get()) {
                        log.info("Filter '{}': loading the generation auto-resize grew it into ({}) from {}", name,
                                resized.geometry(), task.source().description());
                        report = FilterLoads.loadComplete(name, () -> KeySource.load(task.source(), resized, false));
                        resizedNotBefore.remove(name);
                        metrics.get().recordLoad(name, LoadOutcome.SWAPPED, report.keys(), System.nanoTime() - begun);
                        log.info("Filter '{}': loaded {} keys into its resized generation in {} ms; it answers from the"
                                + " next heartbeat", name, report.keys(), report.duration().toMillis());
                    }
                }
            }
            catch (RuntimeException ex) {
                LoadRefusedException refused = FilterLoads.refusal(ex);
                Duration pause = refused == null ? FilterLoads.LAST_RETRY
                        : task.rebuildInterval().isZero() ? FilterLoads.REFUSED_RETRY : task.rebuildInterval();
                resizedNotBefore.put(name, System.nanoTime() + pause.toNanos());
                metrics.get().recordLoad(name, refused == null ? LoadOutcome.FAILED : LoadOutcome.REFUSED,
                        refused == null ? -1 : refused.keys(), System.nanoTime() - begun);
                log.warn("Filter '{}': load of its resized generation failed ({}); checks stay with the generation that"
                        + " holds every key, and it is tried again in {} s", name, ex.getMessage(), pause.toSeconds());
            }
            finally {
                loads.release(name, fresh);
                fresh.complete(report);
            }
        };
        try {
            executor.execute(attempt);
        }
        catch (RejectedExecutionException ex) {
            loads.release(name, fresh);
            fresh.complete(null);
        }
    }

    /** A check of a filter left to another query's instances came back not ready: lost from Redis? */
    private void lookAgainAtForeignFilter(Task task) {
        String name = task.filter().name();
        long now = System.nanoTime();
        // This call looks only if it is the one that moved the time of the last look (once a second).
        boolean due = foreignLookedAt.merge(name, now,
                (last, fresh) -> fresh - last < Duration.ofSeconds(1).toNanos() ? last : fresh) == now;
        ScheduledExecutorService current = threads.scheduler();
        if (!due || current == null || current.isShutdown()) {
            return;
        }
        current.execute(() -> {
            try {
                if (task.filter().isComplete().equals(Optional.of(false))) {
                    schedules.forgetForeign(name);
                    onNotReady(task.filter(), NotReadyCause.INCOMPLETE);
                }
            }
            catch (RuntimeException ex) {
                log.debug("Filter '{}': could not look at the live filter again: {}", name, ex.getMessage());
            }
        });
    }
}
