package dev.bloomguard.spring.warmup;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import dev.bloomguard.core.LoadRefusedException;
import dev.bloomguard.core.LoadReport;
import dev.bloomguard.core.filter.FilterEvent;
import dev.bloomguard.core.filter.GrownGeneration;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.rollout.FilterGenerations;
import dev.bloomguard.core.upkeep.FilterUpkeep;
import dev.bloomguard.spring.BloomGuardException;
import dev.bloomguard.spring.metrics.GuardMetrics;

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
 * <p>This class is the lifecycle and the public face: the startup warmup, {@code rebuild} and
 * the status reads. The loads themselves, their lock and retries are {@link FilterLoads}'s; the
 * periodic jobs {@link FilterSchedules}'s; what a not-ready check or a grown generation asks for
 * {@link FilterReactions}'s; the threads {@link WarmerThreads}'s. All log under this class's name.
 */
public final class FilterWarmer implements SmartLifecycle {

    /** Before the web server starts (it starts in phase {@code DEFAULT_PHASE - 2048}). */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private static final Logger log = LoggerFactory.getLogger(FilterWarmer.class);

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
    private final WarmerThreads threads = new WarmerThreads();
    private final SourceTrust trust = new SourceTrust();
    private final FilterLoads loads;
    private final FilterSchedules schedules;
    /** The core's upkeep of each filter, started with the warmer and closed with it. */
    private final List<FilterUpkeep> upkeeps = new ArrayList<>();
    private final FilterReactions reactions;

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
        this.loads = new FilterLoads(threads, trust, lockTtl, waitPoll, metrics);
        this.schedules = new FilterSchedules(threads, trust, loads, rewindCheckInterval);
        this.reactions = new FilterReactions(this.tasks, threads, trust, loads, schedules, lockTtl, metrics);
    }

    @Override
    public void start() {
        threads.start();
        for (Task task : tasks.values()) {
            upkeeps.add(schedules.startUpkeep(task));
        }
        for (Task task : tasks.values()) {
            if (task.source() != null) {
                // Until this instance knows the live bitmap came from its own query, an "absent" may
                // be a key only that query returns: bypass it. Confirmed in moments when it did.
                trust.distrust(task.filter());
                if (!task.onStartup()) {
                    // Its owner loads it, maybe from another query: looked at now, not one interval on.
                    schedules.watchSource(task);
                }
            }
        }
        for (Task task : tasks.values()) {
            if (task.source() != null && task.onStartup() && task.blocking()) {
                try {
                    ensureWarm(task);
                }
                catch (BloomGuardException ex) {
                    LoadRefusedException refused = FilterLoads.refusal(ex);
                    if (refused == null) {
                        throw ex;
                    }
                    loads.refused(task, refused,
                            task.rebuildInterval().isZero() ? FilterLoads.FIRST_RETRY : task.rebuildInterval());
                }
            }
        }
        for (Task task : tasks.values()) {
            if (task.source() != null && task.onStartup() && !task.blocking()) {
                loads.submit(task, () -> ensureWarm(task));
            }
            schedules.schedule(task);
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
                    || since.map(FilterLoads::age).filter(age -> age.compareTo(task.rebuildInterval()) < 0).isPresent();
            boolean sameSource = FilterLoads.isFromOwnQuery(task);
            if (fresh && sameSource) {
                // Loaded by another instance, perhaps after this one's first heartbeat: look again now.
                FilterUpkeep.heartbeat(filter);
                trust.trust(filter);
                log.info("Filter '{}' is already live in Redis (since {}); not warming it again", filter.name(),
                        since.map(Instant::toString).orElse("an unknown time"));
                return null;
            }
        }
        return loads.load(task, false);
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
        CompletableFuture<LoadReport> runningNow = loads.runningLoad(filter);
        if (runningNow == null) {
            return loads.submit(task, () -> loads.load(task, force, false));
        }
        return runningNow.handle((report, error) -> null)
                .thenCompose(previous -> loads.submit(task, () -> loads.load(task, force, false)));
    }

    /** Why the last load of {@code filter} in this instance failed, if it did and none has succeeded since. */
    public Optional<Failure> lastFailure(String filter) {
        return loads.lastFailure(filter);
    }

    /**
     * Hears a filter's events (its {@link dev.bloomguard.core.filter.FilterListener}): a
     * {@link FilterEvent.NotReady} schedules a re-warm unless one is running, a failed one is
     * backing off, or its cause says the filter is another query's to load. Returns at once.
     * Filters with {@code warmup.on-startup: false} are left to their owner's explicit loads.
     */
    public void onEvent(FilterEvent event) {
        if (event instanceof FilterEvent.NotReady notReady) {
            reactions.onNotReady(notReady.filter(), notReady.cause());
        }
    }

    /** As a {@link FilterEvent.NotReady} of {@code filter} whose cause is not known: see {@link #onEvent}. */
    public void onNotReady(RedisBloomFilter filter) {
        reactions.onNotReady(filter, null);
    }

    /**
     * Loads {@code resized}, the generation auto-resize grew a filter into, from that filter's key
     * source under the grown generation's own load lock: asked for by the filter's heartbeat once
     * a load begun now covers every instance (see {@code FilterGenerations#onResizedToLoad}).
     * Does nothing while a load of the filter runs here, or another instance holds the lock: the
     * next heartbeat asks again if the grown generation is still not loaded. After a failure the
     * heartbeats' asking is ignored for {@link FilterLoads#LAST_RETRY}, after a load refused as too
     * small until the next rebuild (as the own generation's): the source is not read in a loop.
     */
    public void loadResized(GrownGeneration resized) {
        reactions.loadResized(resized);
    }

    /** The filters this warmer keeps warm, by name. */
    public Map<String, Task> tasks() {
        return Collections.unmodifiableMap(tasks);
    }

    /** What {@code filter} is loaded from ({@link KeySource#description()}); empty when nothing. */
    public Optional<String> sourceDescription(String filter) {
        return Optional.ofNullable(tasks.get(filter)).map(Task::source).map(KeySource::description);
    }

    /** True while a load of {@code filter} runs or waits in this instance. */
    public boolean isWarming(String filter) {
        return loads.runningLoad(filter) != null;
    }

    @Override
    public void stop() {
        threads.stopping();
        upkeeps.forEach(FilterUpkeep::close);
        upkeeps.clear();
        for (Task task : tasks.values()) {
            task.filter().generations().ifPresent(FilterGenerations::close);
        }
        threads.shutdown();
    }

    @Override
    public boolean isRunning() {
        return threads.started();
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
