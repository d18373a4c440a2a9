package dev.bloomguard.demo;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import dev.bloomguard.spring.metrics.BloomGuardMetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;

/**
 * {@code GET /stats}: what the filter {@code user} did, in one small document the dashboard polls.
 * The check counts are bloom-guard's {@code bloomguard.checks} counters and the latency its
 * {@code bloomguard.check.duration} timer; {@code databaseQueries} is counted by the demo's own
 * {@link DatabaseStatements}, so the two can be compared.
 */
@RestController
class StatsController {

    static final String FILTER = "user";

    /**
     * @param blocked lookups the filter rejected: the database was not asked
     * @param passed lookups the filter let through (the id may exist)
     * @param bypassed lookups the filter could not decide (not ready, Redis failing) and let through
     * @param databaseQueries statements the application sent to the database, inserts included
     * @param databaseQueriesAvoided one per blocked lookup
     * @param checks every {@code outcome} the counter has for the filter, the three above included
     * @param checkLatency how long the filter took to decide
     */
    record Stats(String filter, long blocked, long passed, long bypassed, long databaseQueries,
            long databaseQueriesAvoided, Map<String, Long> checks, Latency checkLatency) {
    }

    /**
     * The check timers (one per outcome) in microseconds. The percentiles cover the last minute or so (Micrometer's
     * rolling window) and are null unless {@code management.metrics.distribution.percentiles}
     * asks the timer for them, as the demo's {@code application.yml} does.
     *
     * @param count checks timed since startup
     * @param mean over every check since startup
     * @param max the slowest check in the window
     */
    record Latency(long count, double mean, double max, Double p50, Double p95, Double p99) {
    }

    private final MeterRegistry meters;
    private final DatabaseStatements database;

    StatsController(MeterRegistry meters, DatabaseStatements database) {
        this.meters = meters;
        this.database = database;
    }

    @GetMapping("/stats")
    Stats stats() {
        Map<String, Long> checks = new TreeMap<>();
        for (Counter counter : meters.find(BloomGuardMetricNames.CHECKS).tag(BloomGuardMetricNames.TAG_FILTER, FILTER)
                .counters()) {
            checks.merge(counter.getId().getTag(BloomGuardMetricNames.TAG_OUTCOME), (long) counter.count(), Long::sum);
        }
        long blocked = checks.getOrDefault("blocked", 0L);
        return new Stats(FILTER, blocked, checks.getOrDefault("passed", 0L), checks.getOrDefault("bypassed", 0L),
                database.count(), blocked, checks, latency());
    }

    /** The check timers of every outcome taken together; a percentile is the highest of the outcomes'. */
    private Latency latency() {
        long count = 0;
        double total = 0;
        double max = 0;
        Map<Double, Double> percentiles = new HashMap<>();
        for (Timer timer : meters.find(BloomGuardMetricNames.CHECK_DURATION).tag(BloomGuardMetricNames.TAG_FILTER, FILTER)
                .timers()) {
            HistogramSnapshot snapshot = timer.takeSnapshot();
            count += snapshot.count();
            total += snapshot.total(TimeUnit.MICROSECONDS);
            max = Math.max(max, snapshot.max(TimeUnit.MICROSECONDS));
            if (snapshot.count() > 0) {
                for (ValueAtPercentile value : snapshot.percentileValues()) {
                    percentiles.merge(value.percentile(), value.value(TimeUnit.MICROSECONDS), Math::max);
                }
            }
        }
        return new Latency(count, count == 0 ? 0 : total / count, max, percentiles.get(0.5), percentiles.get(0.95),
                percentiles.get(0.99));
    }

}
