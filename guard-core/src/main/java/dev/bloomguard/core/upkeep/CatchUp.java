package dev.bloomguard.core.upkeep;

import java.time.Duration;
import java.time.Instant;

import dev.bloomguard.core.filter.RedisBloomFilter;

/**
 * Rows written outside the filter's adds (another service, a batch job, plain SQL), added to the
 * filter on {@link FilterUpkeep}'s schedule: until then such a row's clear bits block it.
 *
 * <p>Times are the source's own clock, never this process's, so that clock skew between the
 * application and the source cannot skip a row: a load records the source's time before it read
 * its snapshot ({@link RedisBloomFilter.PendingLoad#load(java.util.Iterator, String, Instant, boolean)}),
 * and every run starts where the fleet's last successful run began, or else at that time. One
 * instance of the fleet runs each interval's catch-up, whichever takes the turn in Redis first.
 */
public interface CatchUp {

    /** How often a catch-up runs, for the whole fleet. */
    Duration interval();

    /**
     * The source, as the live bitmap's loads name it ({@code sourceId}): instances of two sources
     * during a rolling change each keep their own progress.
     */
    String sourceId();

    /**
     * Adds to {@code filter} every key written at or after {@code since} (less whatever margin the
     * source needs for writes that commit late).
     *
     * @return the source's clock when this run began: the next run's {@code since}
     */
    Instant addSince(RedisBloomFilter filter, Instant since);

    /**
     * The live bitmap does not say when its load read the source (loaded without a source time,
     * or by an instance without a catch-up), so nothing says since when rows may be missing: the
     * caller loads the filter again, which records it. By default nothing but the log line the
     * upkeep writes.
     */
    default void sinceUnknown(RedisBloomFilter filter) {
    }
}
