package dev.bloomguard.spring.warmup;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Iterator;
import java.util.NoSuchElementException;

import javax.sql.DataSource;

import dev.bloomguard.core.LoadReport;
import dev.bloomguard.core.RedisBloomFilter;
import dev.bloomguard.spring.BloomGuardException;

/**
 * Streams the first column of a query into a filter's bulk load.
 *
 * <p>Memory stays constant whatever the table size: rows are fetched {@code fetchSize} at a time
 * through a forward-only cursor. PostgreSQL only uses a cursor inside a transaction, so
 * autocommit is switched off for the read (and restored after); MySQL's Connector/J streams
 * only with {@code useCursorFetch=true} on the URL.
 */
public final class SqlKeySource {

    private final DataSource dataSource;
    private final String sql;
    private final int fetchSize;

    public SqlKeySource(DataSource dataSource, String sql, int fetchSize) {
        this.dataSource = dataSource;
        this.sql = sql;
        this.fetchSize = fetchSize;
    }

    /**
     * Runs the query and loads every key it returns into {@code filter}, swapping it in at the end;
     * the load begins before the query runs, so that the swap can tell whether Redis kept every add
     * made after the query's snapshot;
     * see {@link RedisBloomFilter#load(Iterator, String, boolean)} for {@code force}.
     */
    public LoadReport loadInto(RedisBloomFilter filter, boolean force) {
        try (Connection connection = dataSource.getConnection();
                RedisBloomFilter.PendingLoad pending = filter.beginLoad()) {
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement(ResultSet.TYPE_FORWARD_ONLY,
                    ResultSet.CONCUR_READ_ONLY)) {
                statement.setFetchSize(fetchSize);
                try (ResultSet rows = statement.executeQuery(sql)) {
                    return pending.load(new ColumnIterator(rows, filter.name()), fingerprint(), force);
                }
            }
            finally {
                connection.rollback();
                connection.setAutoCommit(autoCommit);
            }
        }
        catch (SQLException ex) {
            throw new BloomGuardException("Warmup query of filter '" + filter.name() + "' failed: " + ex.getMessage(), ex);
        }
    }

    /**
     * Names what this source reads: a hash of the query. A live filter loaded from another query
     * may lack keys the new one returns, so it must not be taken as already warm.
     */
    public String fingerprint() {
        return "sql:" + com.google.common.hash.Hashing.sha256().hashString(sql, java.nio.charset.StandardCharsets.UTF_8)
                .toString().substring(0, 16);
    }

    /** The first column of each row, read as its natural Java type (Long, UUID, String, BigDecimal). */
    private static final class ColumnIterator implements Iterator<Object> {

        private final ResultSet rows;
        private final String filter;
        private Boolean hasNext;

        ColumnIterator(ResultSet rows, String filter) {
            this.rows = rows;
            this.filter = filter;
        }

        @Override
        public boolean hasNext() {
            if (hasNext == null) {
                try {
                    hasNext = rows.next();
                }
                catch (SQLException ex) {
                    throw new BloomGuardException("Reading warmup rows of filter '" + filter + "' failed: "
                            + ex.getMessage(), ex);
                }
            }
            return hasNext;
        }

        @Override
        public Object next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            hasNext = null;
            try {
                return rows.getObject(1);
            }
            catch (SQLException ex) {
                throw new BloomGuardException("Reading warmup rows of filter '" + filter + "' failed: "
                        + ex.getMessage(), ex);
            }
        }
    }
}
