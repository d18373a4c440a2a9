package dev.bloomguard.spring.warmup;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Optional;

import javax.sql.DataSource;

import dev.bloomguard.core.LoadReport;
import dev.bloomguard.core.RedisBloomFilter;
import dev.bloomguard.core.hash.KeyType;
import dev.bloomguard.spring.BloomGuardException;

/**
 * Streams the key column of a query (its only column, or the one named {@code keyColumn}) into
 * a filter's bulk load. Each row is canonicalised by the filter's key type, as lookups are.
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
    private final String keyColumn;

    /** A source whose query returns one column, the key. */
    public SqlKeySource(DataSource dataSource, String sql, int fetchSize) {
        this(dataSource, sql, fetchSize, "");
    }

    /** A source whose key is the column named {@code keyColumn}; empty: the query's only column. */
    public SqlKeySource(DataSource dataSource, String sql, int fetchSize, String keyColumn) {
        this.dataSource = dataSource;
        this.sql = sql;
        this.fetchSize = fetchSize;
        this.keyColumn = keyColumn == null ? "" : keyColumn.strip();
    }

    /**
     * The key column as the database describes the query, without running it: PostgreSQL's
     * driver answers {@link PreparedStatement#getMetaData()} with a Describe, no rows read.
     *
     * @return the column, or null when the driver can describe a query only by running it
     * @throws SQLException when the database is unreachable or rejects the query
     */
    public KeyColumn describe(String filter) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(sql)) {
            ResultSetMetaData metadata = statement.getMetaData();
            return metadata == null ? null : KeyColumn.of(metadata, keyColumn, filter);
        }
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
                    KeyColumn column = KeyColumn.of(rows.getMetaData(), keyColumn, filter.name());
                    // The column was checked at startup, unless the database was down then; or the schema changed since.
                    filter.keyType().ifPresent(keyType -> column.keyType(keyType, filter.name()));
                    return pending.load(new ColumnIterator(rows, column.index(), filter.name()), fingerprint(filter), force);
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
     * Names what this source puts into {@code filter}: a hash of the query, its key column and the
     * filter's key type. A live filter loaded from another query may lack keys the new one
     * returns, and one loaded under another key type (a schema change from {@code varchar} to
     * {@code bigint}, a new declaration) holds its keys in another canonical form, so neither
     * may be taken as already warm. A filter without a key type keeps the query-only hash it
     * always had.
     */
    public String fingerprint(RedisBloomFilter filter) {
        Optional<KeyType> keyType = filter.keyType();
        String identity = keyType.isEmpty() && keyColumn.isEmpty() ? sql
                : sql + "\n-- key-column: " + keyColumn + "\n-- key-type: " + keyType.map(KeyType::id).orElse("");
        return "sql:" + HexFormat.of().formatHex(sha256(identity), 0, 8);
    }

    /** The SHA-256 of the UTF-8 text; the first 8 bytes in hex are what Guava's {@code Hashing.sha256()} gave. */
    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("every Java platform has SHA-256", ex);
        }
    }

    /** The key column of each row, read as its natural Java type (Long, UUID, String, BigDecimal). */
    private static final class ColumnIterator implements Iterator<Object> {

        private final ResultSet rows;
        private final int column;
        private final String filter;
        private Boolean hasNext;

        ColumnIterator(ResultSet rows, int column, String filter) {
            this.rows = rows;
            this.column = column;
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
                return rows.getObject(column);
            }
            catch (SQLException ex) {
                throw new BloomGuardException("Reading warmup rows of filter '" + filter + "' failed: "
                        + ex.getMessage(), ex);
            }
        }
    }
}
