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
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

import javax.sql.DataSource;

import dev.bloomguard.core.LoadReport;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.hash.KeyType;
import dev.bloomguard.spring.BloomGuardException;

/**
 * The key source of {@code warmup.sql}: streams the key column of a query (its only column, or
 * the one named {@code keyColumn}) into a filter's bulk load. Each row is canonicalised by the filter's key type, as lookups are.
 *
 * <p>Memory stays constant whatever the table size: rows are fetched {@code fetchSize} at a time
 * through a forward-only cursor. PostgreSQL only uses a cursor inside a transaction, so
 * autocommit is switched off for the read (and restored after); MySQL's Connector/J streams
 * only with {@code useCursorFetch=true} on the URL.
 */
public final class SqlKeySource implements KeySource {

    private final DataSource dataSource;
    private final String sql;
    private final int fetchSize;
    private final String keyColumn;
    private final CatchUpQuery catchUp;

    /** A source whose query returns one column, the key. */
    public SqlKeySource(DataSource dataSource, String sql, int fetchSize) {
        this(dataSource, sql, fetchSize, "");
    }

    /** A source whose key is the column named {@code keyColumn}; empty: the query's only column. */
    public SqlKeySource(DataSource dataSource, String sql, int fetchSize, String keyColumn) {
        this(dataSource, sql, fetchSize, keyColumn, null);
    }

    private SqlKeySource(DataSource dataSource, String sql, int fetchSize, String keyColumn, CatchUpQuery catchUp) {
        this.dataSource = dataSource;
        this.sql = sql;
        this.fetchSize = fetchSize;
        this.keyColumn = keyColumn == null ? "" : keyColumn.strip();
        this.catchUp = catchUp;
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
     * see {@link KeySource#load}.
     */
    public LoadReport loadInto(RedisBloomFilter filter, boolean force) {
        return KeySource.load(this, filter, force);
    }

    /**
     * Runs the query inside a read-only transaction that closing the stream rolls back, and
     * streams its key column. The column is checked against {@code filter}'s key type: at startup
     * it was, unless the database was down then, or the schema changed since.
     */
    @Override
    public Stream<?> keys(RedisBloomFilter filter) {
        Connection connection = null;
        Boolean autoCommit = null;
        Statement statement = null;
        try {
            connection = dataSource.getConnection();
            autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(false);
            statement = connection.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY);
            statement.setFetchSize(fetchSize);
            ResultSet rows = statement.executeQuery(sql);
            KeyColumn column = KeyColumn.of(rows.getMetaData(), keyColumn, filter.name());
            filter.keyType().ifPresent(keyType -> column.keyType(keyType, filter.name()));
            Cursor cursor = new Cursor(connection, autoCommit, statement, filter.name());
            return StreamSupport.stream(Spliterators.spliteratorUnknownSize(
                    new ColumnIterator(rows, column.index(), filter.name()), Spliterator.ORDERED), false)
                    .onClose(cursor::close);
        }
        catch (SQLException ex) {
            new Cursor(connection, autoCommit, statement, filter.name()).closeQuietly();
            throw new BloomGuardException("Warmup query of filter '" + filter.name() + "' failed: " + ex.getMessage(), ex);
        }
        catch (RuntimeException ex) {
            new Cursor(connection, autoCommit, statement, filter.name()).closeQuietly();
            throw ex;
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
    @Override
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

    /** {@code warmup.sql}: the query's text is configuration, not data, but stays in the log. */
    @Override
    public String description() {
        return "warmup.sql";
    }

    /** This source with {@code warmup.catch-up-sql}. */
    public SqlKeySource withCatchUp(CatchUpQuery catchUp) {
        return new SqlKeySource(dataSource, sql, fetchSize, keyColumn, catchUp);
    }

    @Override
    public Optional<CatchUp> catchUp() {
        return Optional.ofNullable(catchUp);
    }

    /** The read's connection, autocommit restored and the transaction rolled back when the stream closes. */
    private record Cursor(Connection connection, Boolean autoCommit, Statement statement, String filter) {

        void close() {
            try {
                release();
            }
            catch (SQLException ex) {
                throw new BloomGuardException("Closing the warmup query of filter '" + filter + "' failed: "
                        + ex.getMessage(), ex);
            }
        }

        void closeQuietly() {
            try {
                release();
            }
            catch (SQLException | RuntimeException ex) {
                // The failure that brought us here is the one to report.
            }
        }

        private void release() throws SQLException {
            if (connection == null) {
                return;
            }
            try (Connection closing = connection) {
                if (statement != null) {
                    statement.close();
                }
                if (autoCommit != null) {
                    closing.rollback();
                    closing.setAutoCommit(autoCommit);
                }
            }
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
