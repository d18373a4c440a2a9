package dev.bloomguard.demo;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import dev.bloomguard.spring.metrics.BloomGuardMetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * {@code GET /stats}: what the filter {@code user} did, in one small document. The check counts
 * are bloom-guard's {@code bloomguard.checks} counters; {@code databaseQueries} is counted by the
 * repository itself, so the two can be compared.
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
     */
    record Stats(String filter, long blocked, long passed, long bypassed, long databaseQueries,
            long databaseQueriesAvoided) {
    }

    private final MeterRegistry meters;
    private final DatabaseStatements database;

    StatsController(MeterRegistry meters, DatabaseStatements database) {
        this.meters = meters;
        this.database = database;
    }

    @GetMapping("/stats")
    Stats stats() {
        long blocked = checks("blocked");
        return new Stats(FILTER, blocked, checks("passed"), checks("bypassed"), database.count(), blocked);
    }

    private long checks(String outcome) {
        Counter counter = meters.find(BloomGuardMetricNames.CHECKS)
                .tag(BloomGuardMetricNames.TAG_FILTER, FILTER)
                .tag(BloomGuardMetricNames.TAG_OUTCOME, outcome)
                .counter();
        return counter == null ? 0 : (long) counter.count();
    }
}
