package dev.bloomguard.spring.warmup;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.upkeep.CatchUp;
import dev.bloomguard.core.upkeep.FilterUpkeep;
import dev.bloomguard.spring.warmup.FilterWarmer.Task;

/**
 * What a {@link FilterWarmer} runs on a schedule for each filter once started, beside the core's
 * {@link FilterUpkeep} (generation heartbeats, the rewind check, journal upkeep and the key source's
 * catch-up query, which a filter without Spring gets too): what needs the whole key source, i.e.
 * rebuilds when due and the watch on which warmup query the live filter came from. It owns that watch's findings
 * (since when a filter is left to another query's instances), which the reactions to a not-ready
 * check and the rebuilds respect.
 */
final class FilterSchedules {

    private static final Logger log = LoggerFactory.getLogger(FilterWarmer.class);

    /**
     * How long an instance leaves a live filter of another warmup query alone (bypassing, never
     * reloading over it on a check) before it loads its own: longer than a rolling deploy takes,
     * as {@code rollout.grace-period}'s default is, so that the two queries' instances do not
     * reload over each other for as long as both run.
     */
    static final Duration FOREIGN_SOURCE_PATIENCE = Duration.ofMinutes(2);

    private final WarmerThreads threads;
    private final SourceTrust trust;
    private final FilterLoads loads;
    private final Duration rewindCheckInterval;
    /** Since when ({@link System#nanoTime}) each filter's live bitmap is known to come from another warmup query. */
    private final Map<String, Long> foreignSince = new ConcurrentHashMap<>();

    FilterSchedules(WarmerThreads threads, SourceTrust trust, FilterLoads loads, Duration rewindCheckInterval) {
        this.threads = threads;
        this.trust = trust;
        this.loads = loads;
        this.rewindCheckInterval = rewindCheckInterval;
    }

    /** Whether {@code filter}'s live bitmap came from another warmup query, within {@link #FOREIGN_SOURCE_PATIENCE}. */
    boolean leftToOtherQuery(String filter) {
        Long since = foreignSince.get(filter);
        return since != null && System.nanoTime() - since < FOREIGN_SOURCE_PATIENCE.toNanos();
    }

    /** {@code filter} was found lost from Redis: it is no longer left to another query's instances. */
    void forgetForeign(String filter) {
        foreignSince.remove(filter);
    }

    /**
     * Starts the core's upkeep of {@code task}'s filter on the warmer's threads: during a rolling
     * change its first heartbeat runs now, before any load or check.
     */
    FilterUpkeep startUpkeep(Task task) {
        FilterUpkeep.Builder upkeep = FilterUpkeep.of(task.filter()).rewindCheckInterval(rewindCheckInterval)
                .scheduler(threads.scheduler()).heartbeats(threads.heartbeats());
        if (task.source() != null) {
            task.source().catchUp().ifPresent(catchUp -> upkeep.catchUp(new SourceCatchUp(task, catchUp)));
        }
        return upkeep.start();
    }

    /** Schedules every periodic job of {@code task} that needs its whole key source on the warmer's threads. */
    void schedule(Task task) {
        ScheduledExecutorService scheduler = threads.scheduler();
        Duration interval = task.rebuildInterval();
        if (task.source() != null && !interval.isZero()) {
            long period = Math.max(1000, Math.min(interval.toMillis() / 4, Duration.ofMinutes(1).toMillis()));
            scheduler.scheduleWithFixedDelay(() -> rebuildIfDue(task), period, period, TimeUnit.MILLISECONDS);
        }
        long watchPeriod = rewindCheckInterval.toMillis();
        scheduler.scheduleWithFixedDelay(() -> watchSource(task), watchPeriod, watchPeriod, TimeUnit.MILLISECONDS);
    }

    /**
     * A rolling deploy that changes the warmup query runs instances of both queries on one
     * filter. Once another instance loads it from its query, this one's "absent" answers may miss
     * keys only its own query returns: it lets them through (counted bypassed) until the live
     * filter comes from its own query again. Neither reloads over the other on its checks for
     * {@link #FOREIGN_SOURCE_PATIENCE} (the deploy ends with one query; after that, an instance
     * left with another query's filter loads its own; one with {@code warmup.on-startup: false}
     * leaves that to its owner and bypasses meanwhile). Checked every {@code rewind-check-interval},
     * which bounds how long such a key is blocked, also while a load of this instance runs or
     * waits for another's lock: that one may swap in its other query's bitmap first. A filter
     * found missing keeps its trust: during auto-resize or a rolling change of geometry another
     * generation may answer, and a missing own one says nothing of where the next bitmap comes from.
     */
    void watchSource(Task task) {
        RedisBloomFilter filter = task.filter();
        if (task.source() == null) {
            return;
        }
        boolean loading = loads.runningLoad(filter.name()) != null;
        try {
            Optional<Boolean> complete = filter.isComplete();
            if (complete.isEmpty()) {
                return; // Redis did not answer: nothing learnt, and the patience goes on
            }
            if (!complete.get()) {
                foreignSince.remove(filter.name()); // missing or incomplete: a check's re-warm loads it
                return;
            }
            Optional<String> liveSource = filter.liveSourceId();
            // A filter not warmed here that its owner loaded without naming a source
            // (FilterOperations#load(Iterator)): nothing says another query built it, and nothing
            // here would load it again, so it is taken as the owner's.
            boolean ownersUnnamed = liveSource.isEmpty() && !task.onStartup();
            if (ownersUnnamed || liveSource.filter(task.source().fingerprint(filter)::equals).isPresent()) {
                foreignSince.remove(filter.name());
                if (!loading && !trust.trusts(filter.name()) && filter.lockHolder().isEmpty()) {
                    trust.trust(filter);
                    log.info("Filter '{}' is loaded from this instance's warmup query again; blocking", filter.name());
                }
            }
            else {
                if (!loading) {
                    foreignSince.putIfAbsent(filter.name(), System.nanoTime());
                }
                if (trust.distrust(filter)) {
                    log.warn("Filter '{}' was loaded from a warmup query other than this instance's (a deploy that"
                            + " changes it rolling out?): its absent answers are let through until it is loaded from"
                            + " this instance's query", filter.name());
                }
            }
        }
        catch (RuntimeException ex) {
            log.debug("Filter '{}': could not read the live filter's source: {}", filter.name(), ex.getMessage());
        }
    }

    private void rebuildIfDue(Task task) {
        if (loads.backingOff(task.filter().name())) {
            return;
        }
        if (leftToOtherQuery(task.filter().name())) {
            return; // the other query's instances rebuild it; see watchSource
        }
        try {
            Optional<Instant> since = task.filter().liveSince();
            if (since.isEmpty() || FilterLoads.age(since.get()).compareTo(task.rebuildInterval()) >= 0) {
                loads.submit(task, () -> loads.load(task, false));
            }
        }
        catch (RuntimeException ex) {
            log.warn("Filter '{}': could not check whether a rebuild is due: {}", task.filter().name(), ex.getMessage());
        }
    }

    private void loadForCatchUp(Task task) {
        RedisBloomFilter filter = task.filter();
        if (!filter.isReady() || !task.onStartup() || loads.backingOff(filter.name())
                || loads.runningLoad(filter.name()) != null || leftToOtherQuery(filter.name())) {
            return; // nothing live (the load to come reads every row), or another instance's to load
        }
        log.info("Filter '{}': loading it again, so that the load records when it read the source", filter.name());
        loads.submit(task, () -> loads.load(task, false));
    }

    /**
     * The key source's catch-up query, as the core's upkeep runs it: one instance of the fleet per
     * interval, from the source time the live load recorded; a live bitmap without one is loaded
     * again here (when this instance warms it), which records it.
     */
    private final class SourceCatchUp implements CatchUp {

        private final Task task;
        private final KeySource.CatchUp query;

        SourceCatchUp(Task task, KeySource.CatchUp query) {
            this.task = task;
            this.query = query;
        }

        @Override
        public Duration interval() {
            return query.interval();
        }

        @Override
        public String sourceId() {
            return task.source().fingerprint(task.filter());
        }

        @Override
        public Instant addSince(RedisBloomFilter filter, Instant since) {
            return query.addSince(filter, since);
        }

        @Override
        public void sinceUnknown(RedisBloomFilter filter) {
            loadForCatchUp(task);
        }
    }
}
