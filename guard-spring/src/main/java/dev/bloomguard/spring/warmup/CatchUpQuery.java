package dev.bloomguard.spring.warmup;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.spring.BloomGuardException;

/**
 * Adds the keys of rows written since a point in time, for rows that never pass through
 * {@code @BloomPut} (another service, a batch job, plain SQL): {@code warmup.catch-up-sql}.
 *
 * <p>Times come from the database's own clock ({@code SELECT CURRENT_TIMESTAMP}), so clock skew
 * between the application and the database cannot skip rows; the one thing easy to get wrong is
 * a row whose timestamp is taken when its transaction starts but which commits later: the
 * {@code overlap} must be longer than the longest such transaction. Adds are idempotent, so
 * reading a row twice costs nothing but the read.
 */
public final class CatchUpQuery implements KeySource.CatchUp {

    private static final Logger log = LoggerFactory.getLogger(CatchUpQuery.class);

    /** {@code :since}, not part of a {@code ::type} cast or a longer name. */
    private static final Pattern SINCE = Pattern.compile("(?<![:\\w]):since\\b");
    private static final int ADD_BATCH = 1_000;
    /** How databases tell their clock; see {@link #now}. */
    private static final List<String> CLOCK_QUERIES = List.of("SELECT CURRENT_TIMESTAMP",
            "SELECT CURRENT_TIMESTAMP FROM DUAL", "VALUES CURRENT TIMESTAMP");

    private final DataSource dataSource;
    private final String sql;
    private final int parameters;
    private final Duration overlap;
    private final Duration interval;
    private final String keyColumn;
    /** The clock query that answered last: tried first. */
    private volatile int clockQuery;

    private CatchUpQuery(DataSource dataSource, String sql, int parameters, Duration overlap, Duration interval,
            String keyColumn) {
        this.keyColumn = keyColumn;
        this.dataSource = dataSource;
        this.sql = sql;
        this.parameters = parameters;
        this.overlap = overlap;
        this.interval = interval;
    }

    /** Whether {@code sql} has the {@code :since} parameter the catch-up binds. */
    public static boolean namesSince(String sql) {
        return SINCE.matcher(sql).find();
    }

    /**
     * @param sql a query with {@code :since} where the time goes, whose key is its only column or
     *        the one {@code keyColumn} names (the warmup's {@code key-column}), as in the warmup query
     * @throws IllegalArgumentException when {@code sql} has no {@code :since}
     */
    public static CatchUpQuery of(DataSource dataSource, String sql, Duration overlap, Duration interval,
            String keyColumn) {
        Matcher matcher = SINCE.matcher(sql);
        int parameters = 0;
        StringBuilder positional = new StringBuilder();
        while (matcher.find()) {
            matcher.appendReplacement(positional, "?");
            parameters++;
        }
        matcher.appendTail(positional);
        if (parameters == 0) {
            throw new IllegalArgumentException("has no :since parameter");
        }
        return new CatchUpQuery(dataSource, positional.toString(), parameters, overlap, interval, keyColumn);
    }

    /** How often the query runs. */
    @Override
    public Duration interval() {
        return interval;
    }

    /**
     * The database's clock now: {@code SELECT CURRENT_TIMESTAMP} (PostgreSQL, MySQL, SQL Server,
     * H2), else with {@code FROM DUAL} (Oracle), else {@code VALUES CURRENT TIMESTAMP} (Db2, Derby);
     * the first that answers is kept.
     *
     * @throws BloomGuardException when the database answers none: the application's clock may be
     *         skewed from the one that stamps the rows, so it never stands in
     */
    @Override
    public Instant now() {
        SQLException last = null;
        for (int tried = 0; tried < CLOCK_QUERIES.size(); tried++) {
            int query = (clockQuery + tried) % CLOCK_QUERIES.size();
            try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
                    ResultSet now = statement.executeQuery(CLOCK_QUERIES.get(query))) {
                if (now.next() && now.getTimestamp(1) != null) {
                    clockQuery = query;
                    return now.getTimestamp(1).toInstant();
                }
            }
            catch (SQLException ex) {
                last = ex;
            }
        }
        throw new BloomGuardException("the catch-up needs the database's clock, and none of " + CLOCK_QUERIES
                + " answered" + (last == null ? "" : " (" + last.getMessage() + ")"), last);
    }

    /**
     * Adds to {@code filter} the key of every row the query returns for {@code since} less the
     * overlap.
     *
     * @return the database's clock when the query started: the next run's {@code since}
     */
    @Override
    public Instant addSince(RedisBloomFilter filter, Instant since) {
        Instant started = now();
        Timestamp from = Timestamp.from(since.minus(overlap));
        long added = 0;
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int parameter = 1; parameter <= parameters; parameter++) {
                statement.setTimestamp(parameter, from);
            }
            try (ResultSet rows = statement.executeQuery()) {
                List<Object> batch = new ArrayList<>(ADD_BATCH);
                int column = KeyColumn.of(rows.getMetaData(), keyColumn, filter.name()).index();
                while (rows.next()) {
                    Object key = rows.getObject(column);
                    if (key != null) {
                        batch.add(key);
                    }
                    if (batch.size() == ADD_BATCH) {
                        filter.addAll(batch);
                        added += batch.size();
                        batch.clear();
                    }
                }
                filter.addAll(batch);
                added += batch.size();
            }
        }
        catch (SQLException ex) {
            throw new BloomGuardException("Catch-up query of filter '" + filter.name() + "' failed: " + ex.getMessage(),
                    ex);
        }
        log.debug("Filter '{}': catch-up added {} keys of rows written since {}", filter.name(), added, from);
        return started;
    }
}
