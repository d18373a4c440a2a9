package dev.bloomguard.spring.warmup;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import dev.bloomguard.core.IncompleteLoadException;
import dev.bloomguard.core.LoadRefusedException;
import dev.bloomguard.core.LoadReport;
import dev.bloomguard.core.RedisBloomFilter;
import dev.bloomguard.core.rollout.FilterGenerations;
import dev.bloomguard.spring.BloomGuardException;
import dev.bloomguard.spring.metrics.GuardMetrics;
import dev.bloomguard.spring.metrics.LoadOutcome;

/**
 * Keeps every filter warm: fills it from its {@link KeySource} (its warmup SQL or a source bean)
 * when the application starts, again whenever a
 * check finds it missing (a flush, an eviction, a failover to an empty replica), every
 * {@code rebuild.interval}, and on demand.
 *
 * <p>Across instances one load runs at a time, under the filter's load lock; the others wait
 * for it without blocking anything (their checks are bypassed until the filter is ready). A
 * filter already complete in Redis, and younger than its rebuild interval, is not warmed again
 * at startup. A blocking startup warmup runs on the starting thread, before the web server
 * takes traffic, and a failure stops startup; everything else runs in the background and is
 * retried with backoff.
 *
 * <p>Size: startup warmup, re-warm, rebuild, catch-up, refusals and retries of every filter;
 * issue 15 has the filter publish events that the warmer subscribes to, which splits it.
 */
public final class FilterWarmer implements SmartLifecycle {

    /** Before the web server starts (it starts in phase {@code DEFAULT_PHASE - 2048}). */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private static final Logger log = LoggerFactory.getLogger(FilterWarmer.class);
    private static final Duration FIRST_RETRY = Duration.ofSeconds(1);
    private static final Duration LAST_RETRY = Duration.ofMinutes(1);

    /** Loads tried, under one hold of the lock, while Redis keeps losing part of them before the swap. */
    private static final int INCOMPLETE_LOAD_ATTEMPTS = 3;
    private static final Duration INCOMPLETE_LOAD_PAUSE = Duration.ofMillis(500);

    /**
     * One filter to keep warm.
     *
     * @param source where its keys come from, or null when it has neither warmup SQL nor a source
     *     bean (it is then loaded only by its owner's explicit loads); its {@link KeySource#catchUp()},
     *     if any, runs every {@link KeySource.CatchUp#interval()}
     * @param onStartup warm when the application starts
     * @param blocking startup waits for the warmup
     * @param rebuildInterval rebuild when the live bitmap is older than this; zero: never
     */
    public record Task(RedisBloomFilter filter, KeySource source, boolean onStartup, boolean blocking,
            Duration rebuildInterval) {
    }

    /**
     * Why the last load of a filter in this instance failed, until one succeeds.
     *
     * @param reason what went wrong; never a key value, but it may be a database's error, which
     *     can quote a row: for the log and the application, not for HTTP clients
     * @param refused whether the load ran but was refused as too small, rather than failed
     * @param at when
     */
    public record Failure(String reason, boolean refused, Instant at) {
    }

    private final Map<String, Task> tasks = new LinkedHashMap<>();
    private final Duration lockTtl;
    private final Duration waitPoll;
    private final Duration rewindCheckInterval;
    private final Map<String, CompletableFuture<LoadReport>> running = new ConcurrentHashMap<>();
    /** How long a filter whose load was refused as too small waits before it is read again, without a rebuild interval. */
    static final Duration REFUSED_RETRY = Duration.ofMinutes(10);
    private final Map<String, Long> retryNotBefore = new ConcurrentHashMap<>();
    /** Until when ({@link System#nanoTime}) a failed load of a filter's resized generation is not tried again. */
    private final Map<String, Long> resizedNotBefore = new ConcurrentHashMap<>();
    private final Map<String, Duration> retryDelay = new ConcurrentHashMap<>();
    private final Map<String, Failure> lastFailures = new ConcurrentHashMap<>();
    private final Map<String, Instant> catchUpSince = new ConcurrentHashMap<>();
    /** Since when ({@link System#nanoTime}) each filter's live bitmap is known to come from another warmup query. */
    private final Map<String, Long> foreignSince = new ConcurrentHashMap<>();
    /**
     * How long an instance leaves a live filter of another warmup query alone (bypassing, never
     * reloading over it on a check) before it loads its own: longer than a rolling deploy takes,
     * as {@code rollout.grace-period}'s default is, so that the two queries' instances do not
     * reload over each other for as long as both run.
     */
    static final Duration FOREIGN_SOURCE_PATIENCE = Duration.ofMinutes(2);
    /** When ({@link System#nanoTime}) a not-ready check last had such a filter looked at again. */
    private final Map<String, Long> foreignLookedAt = new ConcurrentHashMap<>();
    private volatile ExecutorService loads;
    private volatile ScheduledExecutorService scheduler;
    /**
     * Heartbeats of filter generations, on a thread of their own: a catch-up query stuck on a
     * database lock must not make this instance fall silent, which would let the others stop
     * counting it as a writer while it still adds.
     */
    private volatile ScheduledExecutorService heartbeats;
    private volatile boolean started;
    private final Supplier<GuardMetrics> metrics;

    /**
     * @param lockTtl how long a crashed instance's load lock outlives it
     * @param waitPoll how often an instance waiting for another's load looks again
     * @param rewindCheckInterval how often each filter checks that Redis has not gone back in time
     * @param metrics where each load's duration, keys and outcome go; asked at each load, so that
     *     creating the warmer does not create the meter registry early
     */
    public FilterWarmer(List<Task> tasks, Duration lockTtl, Duration waitPoll, Duration rewindCheckInterval,
            Supplier<GuardMetrics> metrics) {
        tasks.forEach(task -> this.tasks.put(task.filter().name(), task));
        this.lockTtl = lockTtl;
        this.waitPoll = waitPoll;
        this.rewindCheckInterval = rewindCheckInterval;
        this.metrics = metrics;
    }

    @Override
    public void start() {
        loads = Executors.newCachedThreadPool(daemonThreads("bloomguard-load-"));
        scheduler = Executors.newSingleThreadScheduledExecutor(daemonThreads("bloomguard-schedule-"));
        heartbeats = Executors.newSingleThreadScheduledExecutor(daemonThreads("bloomguard-heartbeat-"));
        started = true;
        for (Task task : tasks.values()) {
            task.filter().generations().ifPresent(FilterWarmer::heartbeat);
        }
        for (Task task : tasks.values()) {
            if (task.source() != null && task.onStartup()) {
                // Until this instance knows the live bitmap came from its own query, an "absent" may
                // be a key only that query returns: bypass it. Confirmed in moments when it did.
                task.filter().setBlockingSuspended(true);
            }
        }
        for (Task task : tasks.values()) {
            if (task.source() != null && task.onStartup() && task.blocking()) {
                try {
                    ensureWarm(task);
                }
                catch (BloomGuardException ex) {
                    LoadRefusedException refused = refusal(ex);
                    if (refused == null) {
                        throw ex;
                    }
                    refused(task, refused, task.rebuildInterval().isZero() ? FIRST_RETRY : task.rebuildInterval());
                }
            }
        }
        for (Task task : tasks.values()) {
            if (task.source() != null && task.onStartup() && !task.blocking()) {
                submit(task, () -> ensureWarm(task));
            }
            Duration interval = task.rebuildInterval();
            if (task.source() != null && !interval.isZero()) {
                long period = Math.max(1000, Math.min(interval.toMillis() / 4, Duration.ofMinutes(1).toMillis()));
                scheduler.scheduleWithFixedDelay(() -> rebuildIfDue(task), period, period, TimeUnit.MILLISECONDS);
            }
            Optional<KeySource.CatchUp> catchUp = task.source() == null ? Optional.empty() : task.source().catchUp();
            if (catchUp.isPresent()) {
                long period = catchUp.get().interval().toMillis();
                scheduler.scheduleWithFixedDelay(() -> catchUp(task, catchUp.get()), period, period,
                        TimeUnit.MILLISECONDS);
            }
            task.filter().generations().ifPresent(generations -> {
                long period = generations.heartbeatInterval().toMillis();
                heartbeats.scheduleWithFixedDelay(() -> heartbeat(generations), period, period, TimeUnit.MILLISECONDS);
            });
            long rewindPeriod = rewindCheckInterval.toMillis();
            scheduler.scheduleWithFixedDelay(() -> {
                verifyNotBehind(task.filter());
                watchSource(task);
            }, rewindPeriod, rewindPeriod, TimeUnit.MILLISECONDS);
            long journalPeriod = Math.max(1000,
                    Math.min(task.filter().journalRetention().toMillis() / 2, Duration.ofMinutes(1).toMillis()));
            scheduler.scheduleWithFixedDelay(() -> maintainJournal(task.filter()), journalPeriod, journalPeriod,
                    TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Until its first heartbeat succeeds an instance bypasses the filter and its adds fail (and
     * are retried): it does not know which generations the other instances read.
     */
    private static void heartbeat(FilterGenerations generations) {
        try {
            generations.heartbeat();
        }
        catch (RuntimeException ex) {
            generations.heartbeatFailed();
            log.warn("Could not tell other instances which filter generations this one uses: {}", ex.getMessage());
        }
    }

    /**
     * A rolling deploy that changes the warmup query runs instances of both queries on one
     * filter. Once another instance loads it from its query, this one's "absent" answers may miss
     * keys only its own query returns: it lets them through (counted bypassed) until the live
     * filter comes from its own query again. Neither reloads over the other on its checks for
     * {@link #FOREIGN_SOURCE_PATIENCE} (the deploy ends with one query; after that, an instance
     * left with another query's filter loads its own). Checked every {@code rewind-check-interval},
     * which bounds how long such a key is blocked.
     */
    private void watchSource(Task task) {
        RedisBloomFilter filter = task.filter();
        if (task.source() == null || !task.onStartup() || running.containsKey(filter.name())) {
            return;
        }
        try {
            Optional<Boolean> complete = filter.isComplete();
            if (complete.isEmpty()) {
                return; // Redis did not answer: nothing learnt, and the patience goes on
            }
            if (!complete.get()) {
                foreignSince.remove(filter.name()); // missing or incomplete: a check's re-warm loads it
                return;
            }
            boolean own = isFromOwnQuery(task);
            if (own) {
                foreignSince.remove(filter.name());
            }
            else {
                foreignSince.putIfAbsent(filter.name(), System.nanoTime());
            }
            if (!own && !filter.isBlockingSuspended()) {
                filter.setBlockingSuspended(true);
                log.warn("Filter '{}' was loaded from a warmup query other than this instance's (a deploy that"
                        + " changes it rolling out?): its absent answers are let through until it is loaded from this"
                        + " instance's query", filter.name());
            }
            else if (own && filter.isBlockingSuspended() && filter.lockHolder().isEmpty()) {
                filter.setBlockingSuspended(false);
                log.info("Filter '{}' is loaded from this instance's warmup query again; blocking", filter.name());
            }
        }
        catch (RuntimeException ex) {
            log.debug("Filter '{}': could not read the live filter's source: {}", filter.name(), ex.getMessage());
        }
    }

    /** Runs on the scheduler: Redis being unreachable is the breaker's and the checks' concern. */
    private static void verifyNotBehind(RedisBloomFilter filter) {
        try {
            filter.verifyNotBehind();
        }
        catch (RuntimeException ex) {
            log.debug("Filter '{}': could not check whether Redis went back in time: {}", filter.name(),
                    ex.getMessage());
        }
    }

    private static void maintainJournal(RedisBloomFilter filter) {
        try {
            filter.maintainJournal();
        }
        catch (RuntimeException ex) {
            log.debug("Filter '{}': could not rotate the adds journal: {}", filter.name(), ex.getMessage());
        }
    }

    /**
     * Rebuilds {@code filter} from its key source now, under the load lock (waiting for another
     * instance's load to finish first). Keys added meanwhile are kept. A load that reads far
     * fewer keys than the live filter holds is refused; see {@link #rebuild(String, boolean)}.
     *
     * @throws IllegalArgumentException when the filter is unknown or has no key source
     */
    public CompletableFuture<LoadReport> rebuild(String filter) {
        return rebuild(filter, false);
    }

    /**
     * As {@link #rebuild(String)}; {@code force} swaps the load in however much smaller than the
     * live filter it is (beyond {@code rebuild.max-shrink}), for a table that really did shrink.
     */
    public CompletableFuture<LoadReport> rebuild(String filter, boolean force) {
        Task task = tasks.get(filter);
        if (task == null) {
            throw new IllegalArgumentException("No filter named '" + filter + "'; configured: " + tasks.keySet());
        }
        if (task.source() == null) {
            throw new IllegalArgumentException("Filter '" + filter + "' has no bloom-guard.filters." + filter
                    + ".warmup.sql nor source bean to rebuild from");
        }
        // A load that reads its source after this call: one running already, here or on another
        // instance, may have taken its snapshot before the row this rebuild is asked for (the
        // retry queue gives up on refused adds by asking for one).
        CompletableFuture<LoadReport> runningNow = running.get(filter);
        if (runningNow == null) {
            return submit(task, () -> load(task, force, false));
        }
        return runningNow.handle((report, error) -> null)
                .thenCompose(previous -> submit(task, () -> load(task, force, false)));
    }

    /** Why the last load of {@code filter} in this instance failed, if it did and none has succeeded since. */
    public Optional<Failure> lastFailure(String filter) {
        return Optional.ofNullable(lastFailures.get(filter));
    }

    /**
     * Called from a check that found {@code filter} missing or incomplete: schedules a re-warm
     * unless one is running or a failed one is backing off. Returns at once. Filters with
     * {@code warmup.on-startup: false} are left to their owner's explicit loads.
     */
    public void onNotReady(RedisBloomFilter filter) {
        Task task = tasks.get(filter.name());
        if (!started || task == null || task.source() == null || !task.onStartup()
                || running.containsKey(filter.name())) {
            return;
        }
        Long notBefore = retryNotBefore.get(filter.name());
        if (notBefore != null && System.nanoTime() - notBefore < 0) {
            return;
        }
        if (filter.isBlockingSuspended()) {
            Long since = foreignSince.get(filter.name());
            if (since != null && System.nanoTime() - since < FOREIGN_SOURCE_PATIENCE.toNanos()) {
                // Loaded from the other query of a rolling deploy, whose instances it protects:
                // reloading over it would only make them bypass (and soon reload over this one).
                // Unless Redis lost it meanwhile: looked at off the check's thread, once a second.
                lookAgainAtForeignFilter(task);
                return;
            }
            log.warn("Filter '{}' is not known to be built from its current warmup query; absent keys are let"
                    + " through until it is reloaded", filter.name());
        }
        else {
            log.warn("Filter '{}' is missing or incomplete in Redis; checks are bypassed until it is warm again",
                    filter.name());
        }
        submit(task, () -> load(task, false));
    }

    /**
     * Loads {@code resized}, the generation auto-resize grew a filter into, from that filter's key
     * source under the grown generation's own load lock: asked for by the filter's heartbeat once
     * a load begun now covers every instance (see {@code FilterGenerations#onResizedToLoad}).
     * Does nothing while a load of the filter runs here, or another instance holds the lock: the
     * next heartbeat asks again if the grown generation is still not loaded. After a failure the
     * heartbeats' asking is ignored for {@link #LAST_RETRY}, after a load refused as too small
     * until the next rebuild (as the own generation's): the source is not read in a loop.
     */
    public void loadResized(RedisBloomFilter resized) {
        Task task = tasks.get(resized.name());
        ExecutorService executor = loads;
        if (!started || task == null || task.source() == null || executor == null || executor.isShutdown()) {
            return;
        }
        String name = resized.name();
        Long notBefore = resizedNotBefore.get(name);
        if (notBefore != null && System.nanoTime() - notBefore < 0) {
            return;
        }
        CompletableFuture<LoadReport> fresh = new CompletableFuture<>();
        if (running.putIfAbsent(name, fresh) != null) {
            return;
        }
        Runnable attempt = () -> {
            long begun = System.nanoTime();
            LoadReport report = null;
            try {
                Optional<RedisBloomFilter.LoadLease> lease = resized.tryLockForLoad(lockTtl, scheduler);
                if (lease.isPresent()) {
                    try (RedisBloomFilter.LoadLease held = lease.get()) {
                        log.info("Filter '{}': loading the generation auto-resize grew it into ({}) from {}", name,
                                resized.geometry(), task.source().description());
                        report = loadComplete(new Task(resized, task.source(), false, false, Duration.ZERO), false);
                        resizedNotBefore.remove(name);
                        metrics.get().recordLoad(name, LoadOutcome.SWAPPED, report.keys(), System.nanoTime() - begun);
                        log.info("Filter '{}': loaded {} keys into its resized generation in {} ms; it answers from the"
                                + " next heartbeat", name, report.keys(), report.duration().toMillis());
                    }
                }
            }
            catch (RuntimeException ex) {
                LoadRefusedException refused = refusal(ex);
                Duration pause = refused == null ? LAST_RETRY
                        : task.rebuildInterval().isZero() ? REFUSED_RETRY : task.rebuildInterval();
                resizedNotBefore.put(name, System.nanoTime() + pause.toNanos());
                metrics.get().recordLoad(name, refused == null ? LoadOutcome.FAILED : LoadOutcome.REFUSED,
                        refused == null ? -1 : refused.keys(), System.nanoTime() - begun);
                log.warn("Filter '{}': load of its resized generation failed ({}); checks stay with the generation that"
                        + " holds every key, and it is tried again in {} s", name, ex.getMessage(), pause.toSeconds());
            }
            finally {
                running.remove(name, fresh);
                fresh.complete(report);
            }
        };
        try {
            executor.execute(attempt);
        }
        catch (java.util.concurrent.RejectedExecutionException ex) {
            running.remove(name, fresh);
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
        ScheduledExecutorService current = scheduler;
        if (!due || current == null || current.isShutdown()) {
            return;
        }
        current.execute(() -> {
            try {
                if (task.filter().isComplete().equals(Optional.of(false))) {
                    foreignSince.remove(name);
                    onNotReady(task.filter());
                }
            }
            catch (RuntimeException ex) {
                log.debug("Filter '{}': could not look at the live filter again: {}", name, ex.getMessage());
            }
        });
    }

    /** The filters this warmer keeps warm, by name. */
    public Map<String, Task> tasks() {
        return java.util.Collections.unmodifiableMap(tasks);
    }

    /** What {@code filter} is loaded from ({@link KeySource#description()}); empty when nothing. */
    public Optional<String> sourceDescription(String filter) {
        return Optional.ofNullable(tasks.get(filter)).map(Task::source).map(KeySource::description);
    }

    /** True while a load of {@code filter} runs or waits in this instance. */
    public boolean isWarming(String filter) {
        return running.containsKey(filter);
    }

    private CompletableFuture<LoadReport> submit(Task task, java.util.function.Supplier<LoadReport> work) {
        String name = task.filter().name();
        CompletableFuture<LoadReport> fresh = new CompletableFuture<>();
        CompletableFuture<LoadReport> existing = running.putIfAbsent(name, fresh);
        if (existing != null) {
            return existing;
        }
        ExecutorService executor = loads;
        if (executor == null || executor.isShutdown()) {
            running.remove(name, fresh);
            fresh.completeExceptionally(new IllegalStateException("bloom-guard is not running"));
            return fresh;
        }
        Runnable attempt = () -> {
            try {
                LoadReport report = work.get();
                retryNotBefore.remove(name);
                retryDelay.remove(name);
                lastFailures.remove(name);
                running.remove(name, fresh);
                fresh.complete(report);
            }
            catch (Throwable ex) {
                Duration delay = retryDelay.merge(name, FIRST_RETRY,
                        (previous, first) -> previous.multipliedBy(2).compareTo(LAST_RETRY) > 0 ? LAST_RETRY
                                : previous.multipliedBy(2));
                LoadRefusedException refused = refusal(ex);
                if (refused != null) {
                    // A refusal is not a passing fault: reading the whole table again soon would be refused again.
                    delay = task.rebuildInterval().isZero() ? REFUSED_RETRY : task.rebuildInterval();
                    refused(task, refused, delay);
                }
                else {
                    retryNotBefore.put(name, System.nanoTime() + delay.toNanos());
                    lastFailures.put(name, new Failure(ex.getMessage(), false, Instant.now()));
                    log.error("Filter '{}': load failed ({}); checks stay bypassed, next try in {} s", name,
                            ex.getMessage(), delay.toSeconds());
                }
                running.remove(name, fresh);
                fresh.completeExceptionally(ex);
                scheduleRetry(task, delay);
            }
        };
        try {
            executor.execute(attempt);
        }
        catch (java.util.concurrent.RejectedExecutionException ex) {
            running.remove(name, fresh);
            fresh.completeExceptionally(new IllegalStateException("bloom-guard is not running", ex));
        }
        return fresh;
    }

    /**
     * A load too small to trust was not swapped in: the live filter stays, and blocks again if it
     * came from this task's own query. The next try waits for {@code delay} (the next rebuild).
     */
    private void refused(Task task, LoadRefusedException refused, Duration delay) {
        String name = task.filter().name();
        retryNotBefore.put(name, System.nanoTime() + delay.toNanos());
        lastFailures.put(name, new Failure(refused.getMessage(), true, Instant.now()));
        try {
            if (task.filter().isReady() && isFromOwnQuery(task)) {
                task.filter().setBlockingSuspended(false);
            }
        }
        catch (RuntimeException ex) {
            log.debug("Filter '{}': could not read the live filter's source: {}", name, ex.getMessage());
        }
        log.error("{}. If the table really shrank, force the rebuild with FilterWarmer.rebuild(\"{}\", true) or"
                + " raise bloom-guard.filters.{}.rebuild.max-shrink; next try in {} s", refused.getMessage(), name, name,
                delay.toSeconds());
    }

    private static LoadRefusedException refusal(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof LoadRefusedException refused) {
                return refused;
            }
        }
        return null;
    }

    private void scheduleRetry(Task task, Duration delay) {
        ScheduledExecutorService current = scheduler;
        if (current != null && !current.isShutdown()) {
            current.schedule(() -> {
                if (!task.filter().isReady() || task.filter().isBlockingSuspended()) {
                    submit(task, () -> load(task, false));
                }
            }, delay.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Startup: warm unless a complete filter of this geometry, loaded from the same query and
     * younger than the rebuild interval, is already live. A filter from another query (the SQL
     * changed between deploys) could lack keys the new query returns, so it is reloaded.
     */
    private LoadReport ensureWarm(Task task) {
        RedisBloomFilter filter = task.filter();
        if (filter.isReady()) {
            Optional<Instant> since = filter.liveSince();
            boolean fresh = task.rebuildInterval().isZero()
                    || since.map(this::age).filter(age -> age.compareTo(task.rebuildInterval()) < 0).isPresent();
            boolean sameSource = isFromOwnQuery(task);
            if (fresh && sameSource) {
                // Loaded by another instance, perhaps after this one's first heartbeat: look again now.
                filter.generations().ifPresent(FilterWarmer::heartbeat);
                filter.setBlockingSuspended(false);
                log.info("Filter '{}' is already live in Redis (since {}); not warming it again", filter.name(),
                        since.map(Instant::toString).orElse("an unknown time"));
                return null;
            }
        }
        return load(task, false);
    }

    /** Whether the live bitmap was loaded from this task's query (another instance's load of another query is not). */
    private static boolean isFromOwnQuery(Task task) {
        return task.filter().liveSourceId().filter(task.source().fingerprint(task.filter())::equals).isPresent();
    }

    private void rebuildIfDue(Task task) {
        Long notBefore = retryNotBefore.get(task.filter().name());
        if (notBefore != null && System.nanoTime() - notBefore < 0) {
            return;
        }
        Long foreign = foreignSince.get(task.filter().name());
        if (foreign != null && System.nanoTime() - foreign < FOREIGN_SOURCE_PATIENCE.toNanos()) {
            return; // the other query's instances rebuild it; see watchSource
        }
        try {
            Optional<Instant> since = task.filter().liveSince();
            if (since.isEmpty() || age(since.get()).compareTo(task.rebuildInterval()) >= 0) {
                submit(task, () -> load(task, false));
            }
        }
        catch (RuntimeException ex) {
            log.warn("Filter '{}': could not check whether a rebuild is due: {}", task.filter().name(), ex.getMessage());
        }
    }

    /**
     * Loads under the lock. If another instance holds it, waits for it to finish: returns when
     * the filter is complete and unlocked, or takes the lock when the holder went away without
     * finishing.
     */
    private LoadReport load(Task task, boolean force) {
        return load(task, force, true);
    }

    /**
     * @param anotherInstancesWill whether a load by another instance, which may have begun before
     *     this call, will do; false for a rebuild, which waits for it and then loads itself
     */
    private LoadReport load(Task task, boolean force, boolean anotherInstancesWill) {
        RedisBloomFilter filter = task.filter();
        boolean waitedForOther = false;
        while (true) {
            Optional<RedisBloomFilter.LoadLease> lease = filter.tryLockForLoad(lockTtl, scheduler);
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
                filter.generations().ifPresent(FilterWarmer::heartbeat);
                filter.setBlockingSuspended(false);
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
            Instant queryStart = task.source().catchUp().map(KeySource.CatchUp::now).orElse(null);
            LoadReport report = loadComplete(task, force);
            metrics.get().recordLoad(filter.name(), LoadOutcome.SWAPPED, report.keys(), System.nanoTime() - started);
            if (queryStart != null) {
                catchUpSince.merge(filter.name(), queryStart, FilterWarmer::later);
            }
            filter.setBlockingSuspended(false);
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
    private static LoadReport loadComplete(Task task, boolean force) {
        for (int attempt = 1;; attempt++) {
            try {
                return KeySource.load(task.source(), task.filter(), force);
            }
            catch (IncompleteLoadException ex) {
                if (attempt == INCOMPLETE_LOAD_ATTEMPTS) {
                    throw ex;
                }
                Duration pause = INCOMPLETE_LOAD_PAUSE.multipliedBy(1L << (attempt - 1));
                log.warn("Filter '{}': {}; loading again in {} ms", task.filter().name(), ex.getMessage(),
                        pause.toMillis());
                sleep(pause);
            }
        }
    }

    /**
     * Adds the rows written since this instance's last load or catch-up began; an instance that
     * has done neither starts from the live bitmap's load. Nothing live yet: the load to come
     * reads every row.
     */
    private void catchUp(Task task, KeySource.CatchUp catchUp) {
        RedisBloomFilter filter = task.filter();
        try {
            Instant since = catchUpSince.get(filter.name());
            if (since == null) {
                Optional<Instant> liveLoad = filter.liveLoadStarted();
                if (liveLoad.isEmpty()) {
                    return;
                }
                since = liveLoad.get();
            }
            catchUpSince.merge(filter.name(), catchUp.addSince(filter, since), FilterWarmer::later);
        }
        catch (RuntimeException ex) {
            log.warn("Filter '{}': catch-up failed ({}); rows written outside @BloomPut since the last one may be"
                    + " blocked until the next in {} ms", filter.name(), ex.getMessage(),
                    catchUp.interval().toMillis());
        }
    }

    private static Instant later(Instant one, Instant other) {
        return one.isAfter(other) ? one : other;
    }

    private Duration age(Instant since) {
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

    private static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    @Override
    public void stop() {
        started = false;
        for (Task task : tasks.values()) {
            task.filter().generations().ifPresent(FilterGenerations::close);
        }
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

    @Override
    public boolean isRunning() {
        return started;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
