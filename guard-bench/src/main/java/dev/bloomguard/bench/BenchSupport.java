package dev.bloomguard.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

import javax.sql.DataSource;

import io.lettuce.core.RedisFuture;

/** What the scenarios share: the size of the suite's filter, timing, JDBC streaming and the log. */
final class BenchSupport {

    /** Ids 1..PRESENT are in the suite's filters. */
    static final long PRESENT = 1_000_000;
    /** Ids above this were never added. */
    static final long ABSENT_BASE = 1_000_000_000L;
    static final double FPP = 0.01;

    private BenchSupport() {
    }

    static void awaitAll(List<RedisFuture<Long>> pending) {
        try {
            for (RedisFuture<Long> reply : pending) {
                reply.get(60, TimeUnit.SECONDS);
            }
        }
        catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
        pending.clear();
    }

    /** Streams the first column as longs, as the warmup does. */
    static long stream(DataSource dataSource, String sql, LongConsumer consumer) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                statement.setFetchSize(10_000);
                long count = 0;
                try (ResultSet rows = statement.executeQuery(sql)) {
                    while (rows.next()) {
                        consumer.accept(rows.getLong(1));
                        count++;
                    }
                }
                return count;
            }
            finally {
                connection.rollback();
            }
        }
    }

    interface Work {
        void run() throws Exception;
    }

    static double time(Work work) throws Exception {
        long started = System.nanoTime();
        work.run();
        return (System.nanoTime() - started) / 1e9;
    }

    /**
     * Median milliseconds of {@code batches} batches of 1,000 keys (half present) from
     * {@code sequence} on; fails when a batch finds too few present keys to be a real check.
     */
    static double batchMillis(CheckApproach approach, Latency latency, long sequence, int batches) throws Exception {
        long[] nanos = new long[batches];
        for (int b = 0; b < nanos.length; b++) {
            List<Long> ids = new ArrayList<>(1000);
            for (int i = 0; i < 1000; i++) {
                ids.add(latency.idFor(sequence++));
            }
            long before = System.nanoTime();
            int present = approach.containsAll(ids);
            nanos[b] = System.nanoTime() - before;
            if (present < 480) {
                throw new IllegalStateException(approach.name() + " found only " + present + " of 500 present keys");
            }
        }
        return Stats.percentile(Stats.sorted(nanos), 50) / 1e6;
    }

    static void log(String format, Object... arguments) {
        System.out.printf(Locale.ROOT, "[bench] " + format + "%n", arguments);
    }
}
