package dev.bloomguard.spring.warmup;

import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.bloomguard.core.hash.KeyType;
import dev.bloomguard.spring.BloomGuardConfigurationException;

/**
 * The column of a warmup query that holds the key, and how the database compares it, read from
 * JDBC metadata: {@code BIGINT}/{@code NUMERIC} compare as integers, {@code uuid} as UUIDs,
 * {@code CHAR(n)} without trailing blanks, {@code citext} case-insensitively.
 *
 * <p>The one thing easy to get wrong: a declared key type may merge more than the column does
 * (a text column that the application compares with {@code lower()} on both sides may be
 * declared {@code text-case-insensitive}), never less: {@code text} over a {@code uuid} column
 * would block an upper-case spelling of a real key. Collations are not read: a case-insensitive
 * collation (MySQL's default) reports a plain text column, and needs a declared key type.
 */
public final class KeyColumn {

    private final int index;
    private final String label;
    private final String typeName;
    private final KeyType columnKeyType;

    private KeyColumn(int index, String label, String typeName, KeyType columnKeyType) {
        this.index = index;
        this.label = label;
        this.typeName = typeName;
        this.columnKeyType = columnKeyType;
    }

    /**
     * The key column of a query with {@code metadata}: its only column, or the one named
     * {@code keyColumn} (case-insensitively, as unquoted SQL names are).
     *
     * @throws BloomGuardConfigurationException when there are several columns and none is named,
     *         or the named column is missing or ambiguous
     */
    public static KeyColumn of(ResultSetMetaData metadata, String keyColumn, String filter) throws SQLException {
        String property = "bloom-guard.filters." + filter + ".warmup";
        List<String> labels = new ArrayList<>();
        for (int column = 1; column <= metadata.getColumnCount(); column++) {
            labels.add(metadata.getColumnLabel(column));
        }
        int index;
        if (keyColumn == null || keyColumn.isBlank()) {
            if (labels.size() != 1) {
                throw new BloomGuardConfigurationException(property + ".sql returns " + labels.size() + " columns "
                        + labels + "; name the key's column in " + property + ".key-column, or select only the key");
            }
            index = 1;
        }
        else {
            List<Integer> matches = new ArrayList<>();
            for (int i = 0; i < labels.size(); i++) {
                if (labels.get(i).equalsIgnoreCase(keyColumn.strip())) {
                    matches.add(i + 1);
                }
            }
            if (matches.size() != 1) {
                throw new BloomGuardConfigurationException(property + ".key-column (" + keyColumn + ") names "
                        + (matches.isEmpty() ? "no column" : matches.size() + " columns") + " of " + property
                        + ".sql, whose columns are " + labels + (matches.isEmpty() ? "" : "; give the key column an alias"));
            }
            index = matches.get(0);
        }
        String typeName = metadata.getColumnTypeName(index);
        return new KeyColumn(index, labels.get(index - 1), typeName,
                keyTypeOf(metadata.getColumnType(index), typeName == null ? "" : typeName.toLowerCase(Locale.ROOT)));
    }

    /** How the database compares a column of this JDBC type and database type name; null when bloom-guard does not know. */
    static KeyType keyTypeOf(int jdbcType, String typeName) {
        switch (typeName) {
            case "uuid":
                return KeyType.UUID;
            case "citext":
                return KeyType.TEXT_CASE_INSENSITIVE;
            case "bpchar":
                return KeyType.CHAR;
            default:
                break;
        }
        return switch (jdbcType) {
            case Types.BIGINT, Types.INTEGER, Types.SMALLINT, Types.TINYINT, Types.NUMERIC, Types.DECIMAL -> KeyType.INTEGER;
            case Types.CHAR, Types.NCHAR -> KeyType.CHAR;
            case Types.VARCHAR, Types.NVARCHAR, Types.LONGVARCHAR, Types.LONGNVARCHAR, Types.CLOB, Types.NCLOB -> KeyType.TEXT;
            case Types.BINARY, Types.VARBINARY, Types.LONGVARBINARY, Types.BLOB -> KeyType.BYTES;
            default -> null;
        };
    }

    /** The column's position in the query, from 1. */
    public int index() {
        return index;
    }

    /**
     * The key type the filter must use: the column's, or {@code declared} when it merges at
     * least what the column's type merges.
     *
     * @throws BloomGuardConfigurationException naming both types when {@code declared}
     *         contradicts the column, or when the column's type is unknown and nothing is declared
     */
    public KeyType keyType(KeyType declared, String filter) {
        String prefix = "bloom-guard.filters." + filter;
        if (columnKeyType == null) {
            if (declared == null) {
                throw new BloomGuardConfigurationException(prefix + ".warmup.sql: its key column '" + label
                        + "' is of type " + typeName + ", which bloom-guard cannot compare as the database does;"
                        + " declare " + prefix + ".key-type (text compares the value's text as is), or select the key"
                        + " as a number or text");
            }
            return declared;
        }
        if (declared == null || declared == columnKeyType) {
            return columnKeyType;
        }
        if (columnKeyType == KeyType.TEXT && (declared == KeyType.TEXT_CASE_INSENSITIVE || declared == KeyType.CHAR)) {
            return declared;
        }
        throw new BloomGuardConfigurationException(prefix + ".key-type (" + declared.id() + ") contradicts the key"
                + " column '" + label + "' of " + prefix + ".warmup.sql, of type " + typeName + ", which the database"
                + " compares as " + columnKeyType.id() + "; remove key-type or declare "
                + (columnKeyType == KeyType.TEXT ? "text, text-case-insensitive or char" : columnKeyType.id()));
    }

    @Override
    public String toString() {
        return "column " + index + " '" + label + "' (" + typeName + ")";
    }
}
