package dev.bloomguard.core.upkeep;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.load.CatchUpTurn;
import dev.bloomguard.core.rollout.FilterGenerations;

/**
 * What keeps a filter's promise between checks, on a schedule: during a rolling change, the
 * heartbeat that tells other instances which generations this one reads and writes (on a thread of
 * its own, so that no slow job delays it past the grace period); the look at whether Redis went back
 * in time ({@link RedisBloomFilter#verifyNotBehind}), which bounds how long a key whose add Redis
 * lost can be blocked when this instance makes no add; and the adds journal's rotation and trim
 * ({@link RedisBloomFilter#maintainJournal}), without which a long load's swap may drop adds.
 *
 * <p>The Spring starter runs one per filter. Without Spring, start one after building the filter
 * and close it before closing the filter:
 * <pre>{@code
 * FilterUpkeep upkeep = FilterUpkeep.of(users).start();
 * ...
 * upkeep.close();
 * users.close();
 * }</pre>
 * Given a {@link CatchUp} (the caller's query of rows written since a time), it also adds, once an
 * interval for the whole fleet, the rows written outside the filter's adds. What it does not do is
 * the source's: loads and rebuilds read the whole source, which is the caller's. Nor does it see
 * the caller's adds: one that Redis refused after its row committed goes to {@link RetriedAdds},
 * which retries it until it lands and keeps the filter from blocking meanwhile, as the starter
 * does with its own ({@code WithoutSpringExampleTests}).
 */
public final class FilterUpkeep implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RedisBloomFilter.class);

    /** Shared by every upkeep that brings no executor of its own: daemon threads, one per kind of job. */
    private static final class Shared {
        static final ScheduledExecutorService SCHEDULER = daemon("bloomguard-upkeep");
        static final ScheduledExecutorService HEARTBEATS = daemon("bloomguard-upkeep-heartbeat");
    }

    private static ScheduledExecutorService daemon(String name) {
        return Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        });
    }

    private final RedisBloomFilter filter;
    private final List<ScheduledFuture<?>> jobs = new ArrayList<>();
    /**
     * This filter's catch-up queries, on a thread of their own: a query stuck on a database lock
     * holds up neither the rewind check nor another filter's catch-up. Null without a catch-up.
     */
    private ScheduledExecutorService catchUps;

    private FilterUpkeep(RedisBloomFilter filter) {
        this.filter = filter;
    }

    /** The upkeep of {@code filter}, with its defaults; {@link Builder#start} starts it. */
    public static Builder of(RedisBloomFilter filter) {
        if (filter == null) {
            throw new IllegalArgumentException("the filter to keep up must not be null");
        }
        return new Builder(filter);
    }

    /** Stops every job; one that runs finishes. The filter keeps working without them. */
    @Override
    public synchronized void close() {
        jobs.forEach(job -> job.cancel(false));
        jobs.clear();
        if (catchUps != null) {
            catchUps.shutdown();
            catchUps = null;
        }
    }

    /**
     * Heartbeats {@code filter}'s generations once, now, on the calling thread, as the upkeep does
     * (nothing outside a rolling change): to look again at once when a load of another instance
     * may have changed which generation answers. Until its first heartbeat succeeds an instance
     * bypasses the filter and its adds fail (and are retried); a failed one makes it so again.
     */
    public static void heartbeat(RedisBloomFilter filter) {
        filter.generations().ifPresent(generations -> heartbeat(filter, generations));
    }

    private static void heartbeat(RedisBloomFilter filter, FilterGenerations<?> generations) {
        try {
            generations.heartbeat();
        }
        catch (RuntimeException ex) {
            generations.heartbeatFailed();
            log.warn("Filter '{}': could not tell other instances which filter generations this one uses: {}",
                    filter.name(), ex.getMessage());
        }
    }

    /** Redis being unreachable is the breaker's and the checks' concern: looked at again next time. */
    private void verifyNotBehind() {
        try {
            filter.verifyNotBehind();
        }
        catch (RuntimeException ex) {
            log.debug("Filter '{}': could not check whether Redis went back in time: {}", filter.name(),
                    ex.getMessage());
        }
    }

    private void maintainJournal() {
        try {
            filter.maintainJournal();
        }
        catch (RuntimeException ex) {
            log.debug("Filter '{}': could not rotate the adds journal: {}", filter.name(), ex.getMessage());
        }
    }

    /**
     * Adds the rows written since the fleet's last catch-up began, or else since the live
     * bitmap's load read its source, by the source's own clock as that load recorded it: one
     * instance of the fleet per interval ({@link CatchUpTurn}), not each of them. A failed run
     * records nothing, so the next one starts from the older time again.
     */
    private void catchUp(CatchUp catchUp) {
        try {
            Optional<CatchUpTurn> turn = filter.tryCatchUpTurn(catchUp.sourceId(), catchUp.interval());
            if (turn.isEmpty()) {
                return; // another instance runs it this interval
            }
            Optional<Instant> since = turn.get().since().or(filter::liveSourceTime);
            if (since.isEmpty()) {
                if (filter.isReady()) {
                    log.warn("Filter '{}': the live filter does not say when its load read the source, so rows written"
                            + " outside the filter's adds since then cannot be caught up: load it with the source's time"
                            + " (PendingLoad#load(keys, sourceId, sourceTime, force))", filter.name());
                }
                catchUp.sinceUnknown(filter);
                return;
            }
            turn.get().caughtUp(catchUp.addSince(filter, since.get()));
        }
        catch (RuntimeException ex) {
            log.warn("Filter '{}': catch-up failed ({}); rows written outside the filter's adds since the last one may be"
                    + " blocked until the next in {} ms", filter.name(), ex.getMessage(), catchUp.interval().toMillis());
        }
    }

    /** How often the journal is looked after: half its retention, between a second and a minute. */
    static Duration journalPeriod(Duration retention) {
        return Duration.ofMillis(Math.max(1_000, Math.min(retention.toMillis() / 2, Duration.ofMinutes(1).toMillis())));
    }

    /** The settings of an upkeep, each with its default. */
    public static final class Builder {

        private final RedisBloomFilter filter;
        private Duration rewindCheckInterval = Duration.ofSeconds(5);
        private ScheduledExecutorService scheduler = Shared.SCHEDULER;
        private ScheduledExecutorService heartbeats = Shared.HEARTBEATS;
        private CatchUp catchUp;

        private Builder(RedisBloomFilter filter) {
            this.filter = filter;
        }

        /**
         * How often Redis is asked whether it went back in time (default 5 s): a key whose add
         * Redis lost is blocked for at most this long when this instance makes no add meanwhile.
         */
        public Builder rewindCheckInterval(Duration interval) {
            if (interval == null || interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("rewind-check-interval of filter '" + filter.name()
                        + "' must be positive, was " + interval);
            }
            this.rewindCheckInterval = interval;
            return this;
        }

        /** Runs the rewind check and the journal's upkeep (default: one daemon thread shared by every upkeep). */
        public Builder scheduler(ScheduledExecutorService scheduler) {
            if (scheduler == null) {
                throw new IllegalArgumentException("scheduler of filter '" + filter.name() + "' must not be null");
            }
            this.scheduler = scheduler;
            return this;
        }

        /** Runs the generations' heartbeats (default: one daemon thread shared by every upkeep, for nothing else). */
        public Builder heartbeats(ScheduledExecutorService heartbeats) {
            if (heartbeats == null) {
                throw new IllegalArgumentException("heartbeat scheduler of filter '" + filter.name()
                        + "' must not be null");
            }
            this.heartbeats = heartbeats;
            return this;
        }

        /**
         * Runs {@code catchUp} every {@link CatchUp#interval()} (default: none), on a daemon thread
         * of this upkeep's own (ended by {@link FilterUpkeep#close}), so that a slow query holds up
         * neither the rewind check nor another filter's catch-up: one
         * instance of the fleet per interval adds the rows written outside the filter's adds since the
         * last run began, by the source's clock. It starts from the source time the live load recorded
         * ({@code PendingLoad#load(keys, sourceId, sourceTime, force)}); a filter loaded without one
         * is not caught up until it is loaded with one ({@link CatchUp#sinceUnknown}).
         */
        public Builder catchUp(CatchUp catchUp) {
            if (catchUp == null) {
                throw new IllegalArgumentException("catch-up of filter '" + filter.name() + "' must not be null");
            }
            Duration interval = catchUp.interval();
            if (interval == null || interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("catch-up interval of filter '" + filter.name()
                        + "' must be positive, was " + interval);
            }
            this.catchUp = catchUp;
            return this;
        }

        /**
         * Schedules every job, the first of each one period from now; during a rolling change,
         * heartbeats once first, on the calling thread, so that the filter can answer at once.
         */
        public FilterUpkeep start() {
            FilterUpkeep upkeep = new FilterUpkeep(filter);
            heartbeat(filter);
            synchronized (upkeep) {
                filter.generations().ifPresent(generations -> upkeep.jobs.add(every(heartbeats,
                        generations.heartbeatInterval(), () -> heartbeat(filter, generations))));
                upkeep.jobs.add(every(scheduler, rewindCheckInterval, upkeep::verifyNotBehind));
                upkeep.jobs.add(every(scheduler, journalPeriod(filter.journalRetention()), upkeep::maintainJournal));
                if (catchUp != null) {
                    CatchUp job = catchUp;
                    upkeep.catchUps = daemon("bloomguard-upkeep-catch-up-" + filter.name());
                    upkeep.jobs.add(every(upkeep.catchUps, job.interval(), () -> upkeep.catchUp(job)));
                }
            }
            return upkeep;
        }

        private static ScheduledFuture<?> every(ScheduledExecutorService executor, Duration period, Runnable job) {
            long millis = period.toMillis();
            return executor.scheduleWithFixedDelay(job, millis, millis, TimeUnit.MILLISECONDS);
        }
    }
}
