package dev.bloomguard.core.hash;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * How the database compares a filter's keys, so that a lookup lands on the bits of the stored
 * key whenever the database would find that key's row, whatever Java type or spelling the
 * lookup arrives in: {@code "0042"} for {@code 42}, an upper-case UUID, a {@code CHAR(8)} code
 * without its padding, an e-mail in another case.
 *
 * <p>{@link #canonical} turns a key into the value that is hashed (through {@link KeyEncoding}),
 * on every check and add and for every warmup row alike. A lookup the database could not read
 * as a value of the type ({@code "abc"} for an integer, {@code "not-a-uuid"} for a UUID) is
 * hashed as its own text, which no canonical value equals: it is answered like any absent key,
 * and never throws. The one thing easy to get wrong: a key type must merge <em>at least</em>
 * what the database merges; merging more only costs false positives, merging less blocks real keys.
 *
 * <p>This is stored format: the canonical value of a key that is already in its type's
 * canonical Java form (a {@code Long}, a {@code UUID}, a {@code String} for text) is the one
 * {@link KeyEncoding} gives it, so bits written before key types existed stay valid.
 *
 * <p>How PostgreSQL reads a number from text is {@code PostgresNumbers}'s; the canonical forms
 * stay here, one stored format pinned by one golden test.
 */
public enum KeyType {

    /**
     * Integer and numeric columns: any Java number, or text as PostgreSQL reads a number
     * (surrounding whitespace, a sign, leading zeros, {@code _} between digits, {@code 0x}/
     * {@code 0o}/{@code 0b} prefixes, a fraction or exponent) → its value as decimal text.
     * A fractional value stays fractional ({@code 42.50} → {@code 42.5}), as a numeric column compares it.
     */
    INTEGER("integer"),

    /** UUID columns: a {@code UUID}, or text in any case, with or without hyphens or braces → lower-case canonical text. */
    UUID("uuid"),

    /** Text compared as is (PostgreSQL {@code text}, {@code varchar}); other Java types as their {@link KeyEncoding} text. */
    TEXT("text"),

    /**
     * Text compared case-insensitively (PostgreSQL {@code citext}, which compares {@code lower()}
     * of both sides; a case-insensitive collation). Every code point is folded to
     * {@code lowerCase(upperCase(c))}: a simple case fold that merges each letter with all its
     * cases, more than {@code lower()} of any locale merges (Σ σ ς; I i İ ı).
     */
    TEXT_CASE_INSENSITIVE("text-case-insensitive"),

    /**
     * Blank-padded text (SQL {@code CHAR(n)}, PostgreSQL {@code bpchar}): trailing spaces do not
     * count, as PostgreSQL ignores them comparing {@code bpchar} values; everything else as {@link #TEXT}.
     */
    CHAR("char"),

    /**
     * Binary columns ({@code bytea}): a {@code byte[]}, or PostgreSQL's text forms of bytes
     * ({@code \x0aff} hex, or escape format), or any other text as its UTF-8 bytes → lower-case hex.
     */
    BYTES("bytes");

    /** PostgreSQL's numeric limits: no column value has more digits, so a longer text matches no row. */
    private static final int MAX_INTEGER_DIGITS = 131_072;
    private static final int MAX_FRACTION_DIGITS = 16_383;

    private final String id;

    KeyType(String id) {
        this.id = id;
    }

    /** The name used in configuration ({@code bloom-guard.filters.<name>.key-type}) and in Redis key names. */
    public String id() {
        return id;
    }

    /**
     * The value hashed for {@code key}: a {@code Long}, {@code BigInteger}, {@code UUID} or
     * {@code String} whose {@link KeyEncoding} bytes are the same for every key the database
     * treats as equal. Never throws for a key of an unexpected form.
     */
    public Object canonical(Object key) {
        return switch (this) {
            case INTEGER -> integer(key);
            case UUID -> uuid(key);
            case TEXT -> KeyEncoding.canonicalText(key);
            case TEXT_CASE_INSENSITIVE -> fold(KeyEncoding.canonicalText(key));
            case CHAR -> stripTrailingBlanks(KeyEncoding.canonicalText(key));
            case BYTES -> bytes(key);
        };
    }

    private static Object integer(Object key) {
        if (key instanceof Long || key instanceof Integer || key instanceof Short || key instanceof Byte) {
            return ((Number) key).longValue();
        }
        if (key instanceof Double || key instanceof Float) {
            double value = ((Number) key).doubleValue();
            if (Double.isNaN(value) || Double.isInfinite(value)) {
                return key.toString();
            }
        }
        String text = key instanceof CharSequence chars ? chars.toString() : KeyEncoding.canonicalText(key);
        BigDecimal value = PostgresNumbers.parse(text);
        if (value == null) {
            return text;
        }
        if (value.signum() == 0) {
            return 0L;
        }
        BigDecimal stripped = value.stripTrailingZeros();
        if (stripped.scale() > MAX_FRACTION_DIGITS || stripped.precision() - stripped.scale() > MAX_INTEGER_DIGITS) {
            return text;
        }
        if (stripped.scale() > 0) {
            return stripped.toPlainString();
        }
        BigInteger whole = stripped.toBigIntegerExact();
        return whole.bitLength() < 64 ? (Object) whole.longValue() : whole;
    }

    private static Object uuid(Object key) {
        if (key instanceof java.util.UUID) {
            return key;
        }
        String text = key instanceof CharSequence chars ? chars.toString() : KeyEncoding.canonicalText(key);
        String trimmed = text.strip();
        if (trimmed.startsWith("{") && trimmed.endsWith("}")) {
            trimmed = trimmed.substring(1, trimmed.length() - 1);
        }
        String hex = trimmed.replace("-", "");
        if (hex.length() != 32 || PostgresNumbers.digits(hex, 0, 32, 16) == null || hex.indexOf('_') >= 0) {
            return text;
        }
        return new java.util.UUID(Long.parseUnsignedLong(hex, 0, 16, 16), Long.parseUnsignedLong(hex, 16, 32, 16));
    }

    /** Folds every code point to one case: lower case of its upper case (simple mappings, no locale). */
    private static String fold(String text) {
        StringBuilder folded = new StringBuilder(text.length());
        text.codePoints().forEach(c -> folded.appendCodePoint(Character.toLowerCase(Character.toUpperCase(c))));
        return folded.toString();
    }

    private static String stripTrailingBlanks(String text) {
        int end = text.length();
        while (end > 0 && text.charAt(end - 1) == ' ') {
            end--;
        }
        return text.substring(0, end);
    }

    private static Object bytes(Object key) {
        if (key instanceof byte[] bytes) {
            return HexFormat.of().formatHex(bytes);
        }
        String text = key instanceof CharSequence chars ? chars.toString() : KeyEncoding.canonicalText(key);
        byte[] bytes = byteaInput(text);
        return bytes == null ? text : HexFormat.of().formatHex(bytes);
    }

    /**
     * PostgreSQL's {@code bytea} input: {@code \x} then hex pairs (whitespace between pairs
     * allowed), or the escape format ({@code \\} and {@code \ooo} octal; other bytes as their
     * UTF-8). Null when PostgreSQL would reject the text.
     */
    private static byte[] byteaInput(String text) {
        if (text.startsWith("\\x") || text.startsWith("\\X")) {
            String hex = text.substring(2).replaceAll("[ \t\n\r]", "");
            if (hex.length() % 2 != 0 || !hex.isEmpty() && PostgresNumbers.digits(hex, 0, hex.length(), 16) == null
                    || hex.indexOf('_') >= 0) {
                return null;
            }
            return HexFormat.of().parseHex(hex);
        }
        if (text.indexOf('\\') < 0) {
            return text.getBytes(StandardCharsets.UTF_8);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(text.length());
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < utf8.length; i++) {
            if (utf8[i] != '\\') {
                out.write(utf8[i]);
            }
            else if (i + 1 < utf8.length && utf8[i + 1] == '\\') {
                out.write('\\');
                i++;
            }
            else if (i + 3 < utf8.length && isOctal(utf8[i + 1], '3') && isOctal(utf8[i + 2], '7')
                    && isOctal(utf8[i + 3], '7')) {
                out.write((utf8[i + 1] - '0') << 6 | (utf8[i + 2] - '0') << 3 | (utf8[i + 3] - '0'));
                i += 3;
            }
            else {
                return null;
            }
        }
        return out.toByteArray();
    }

    private static boolean isOctal(byte b, char highest) {
        return b >= '0' && b <= highest;
    }
}
