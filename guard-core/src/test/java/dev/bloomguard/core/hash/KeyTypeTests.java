package dev.bloomguard.core.hash;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.bloomguard.core.FilterGeometry;

/**
 * Each key type merges what its database type treats as equal, so that a lookup written any
 * way the database accepts lands on the bits of the warmed key; and every form the database
 * cannot read lands on bits no stored key has, without an exception.
 */
class KeyTypeTests {

    private static final UUID ID = UUID.fromString("123e4567-e89b-12d3-a456-426614174000");

    @ParameterizedTest
    @ValueSource(strings = { "42", "0042", " 42", "42 ", "\t42\n", "+42", "+0042", "4_2", "42.0", "4.2e1", "420E-1",
            "0x2A", "0X2a", "0o52", "0b101010" })
    void integerReadsEveryTextTheDatabaseReadsAsFortyTwo(String text) {
        assertThat(bytes(KeyType.INTEGER, text)).isEqualTo(bytes(KeyType.INTEGER, 42L));
    }

    @Test
    void integerMergesEveryJavaNumberOfTheSameValue() {
        Object[] fortyTwo = { 42L, 42, (short) 42, (byte) 42, BigInteger.valueOf(42), new BigDecimal("42.000"),
                new BigDecimal("4.2E+1"), 42.0d, 42.0f, new AtomicLong(42) };
        for (Object key : fortyTwo) {
            assertThat(bytes(KeyType.INTEGER, key)).as("%s (%s)", key, key.getClass().getSimpleName())
                    .isEqualTo("42".getBytes());
        }
        assertThat(bytes(KeyType.INTEGER, "-0042")).isEqualTo("-42".getBytes());
        assertThat(bytes(KeyType.INTEGER, "-0")).isEqualTo("0".getBytes());
        assertThat(bytes(KeyType.INTEGER, " 123456789012345678901234567890 "))
                .isEqualTo("123456789012345678901234567890".getBytes());
    }

    @Test
    void integerKeepsTheStoredFormOfEveryJavaIntegerSoFiltersInRedisStayValid() {
        for (Object key : new Object[] { 42L, -7, Long.MIN_VALUE, new BigInteger("123456789012345678901234567890"),
                new BigDecimal("42.50") }) {
            assertThat(bytes(KeyType.INTEGER, key)).isEqualTo(KeyEncoding.canonicalBytes(key));
        }
    }

    @Test
    void integerComparesAFractionalValueByValue() {
        assertThat(bytes(KeyType.INTEGER, "42.50")).isEqualTo(bytes(KeyType.INTEGER, new BigDecimal("42.5")));
        assertThat(bytes(KeyType.INTEGER, "42.5")).isNotEqualTo(bytes(KeyType.INTEGER, 42L));
    }

    @ParameterizedTest
    @ValueSource(strings = { "abc", "", " ", "4 2", "42abc", "0x", "4__2", "_42", "42_", "1e", "--42", "NaN",
            "Infinity", "1e999999999" })
    void integerHashesTextThatIsNoNumberAsItselfWhichNoNumberEquals(String text) {
        assertThat(KeyType.INTEGER.canonical(text)).isEqualTo(text);
    }

    @Test
    void integerTakesNonFiniteDoublesWithoutThrowing() {
        assertThat(KeyType.INTEGER.canonical(Double.NaN)).isEqualTo("NaN");
    }

    @ParameterizedTest
    @ValueSource(strings = { "123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000",
            "{123e4567-e89b-12d3-a456-426614174000}", "123e4567e89b12d3a456426614174000",
            "123e-4567-e89b-12d3-a456-4266-1417-4000", " 123e4567-e89b-12d3-a456-426614174000 " })
    void uuidReadsEveryTextTheDatabaseReadsAsTheSameUuid(String text) {
        assertThat(bytes(KeyType.UUID, text)).isEqualTo(bytes(KeyType.UUID, ID))
                .isEqualTo(KeyEncoding.canonicalBytes(ID));
    }

    @ParameterizedTest
    @ValueSource(strings = { "not-a-uuid", "123e4567-e89b-12d3-a456-42661417400", "123e4567-e89b-12d3-a456-4266141740000",
            "123g4567-e89b-12d3-a456-426614174000", "{123e4567-e89b-12d3-a456-426614174000" })
    void uuidHashesTextThatIsNoUuidAsItselfWhichNoUuidEquals(String text) {
        assertThat(KeyType.UUID.canonical(text)).isEqualTo(text);
    }

    @Test
    void textKeepsTextAsIsAndOtherTypesAsTheirCanonicalText() {
        assertThat(bytes(KeyType.TEXT, " Alice ")).isEqualTo(" Alice ".getBytes());
        assertThat(bytes(KeyType.TEXT, "Alice")).isNotEqualTo(bytes(KeyType.TEXT, "alice"));
        assertThat(bytes(KeyType.TEXT, 42L)).isEqualTo(KeyEncoding.canonicalBytes(42L));
        assertThat(bytes(KeyType.TEXT, ID)).isEqualTo(KeyEncoding.canonicalBytes(ID));
    }

    @Test
    void caseInsensitiveTextMergesEveryCaseOfALetter() {
        assertThat(bytes(KeyType.TEXT_CASE_INSENSITIVE, "Alice@Example.COM"))
                .isEqualTo(bytes(KeyType.TEXT_CASE_INSENSITIVE, "alice@example.com"));
        // Greek capital sigma, small sigma and final sigma are one letter to lower() per character.
        assertThat(bytes(KeyType.TEXT_CASE_INSENSITIVE, "ΟΔΟΣ")).isEqualTo(bytes(KeyType.TEXT_CASE_INSENSITIVE, "οδοσ"))
                .isEqualTo(bytes(KeyType.TEXT_CASE_INSENSITIVE, "οδος"));
        // Dotted and dotless i merge whatever the database's locale (Turkish lower('I') is 'ı').
        assertThat(bytes(KeyType.TEXT_CASE_INSENSITIVE, "İSTANBUL"))
                .isEqualTo(bytes(KeyType.TEXT_CASE_INSENSITIVE, "istanbul"))
                .isEqualTo(bytes(KeyType.TEXT_CASE_INSENSITIVE, "ıstanbul"));
        assertThat(bytes(KeyType.TEXT_CASE_INSENSITIVE, "alice ")).isNotEqualTo(bytes(KeyType.TEXT_CASE_INSENSITIVE, "alice"));
        assertThat(bytes(KeyType.TEXT_CASE_INSENSITIVE, "bob")).isNotEqualTo(bytes(KeyType.TEXT_CASE_INSENSITIVE, "alice"));
    }

    @Test
    void charIgnoresTrailingBlanksAsPostgresqlComparesCharN() {
        assertThat(bytes(KeyType.CHAR, "AB12    ")).isEqualTo(bytes(KeyType.CHAR, "AB12"))
                .isEqualTo(bytes(KeyType.CHAR, "AB12 "));
        assertThat(bytes(KeyType.CHAR, " AB12")).isNotEqualTo(bytes(KeyType.CHAR, "AB12"));
        assertThat(bytes(KeyType.CHAR, "ab12")).isNotEqualTo(bytes(KeyType.CHAR, "AB12"));
        assertThat(bytes(KeyType.CHAR, "AB12\t")).isNotEqualTo(bytes(KeyType.CHAR, "AB12"));
        assertThat(bytes(KeyType.CHAR, "    ")).isEqualTo(bytes(KeyType.CHAR, ""));
    }

    @Test
    void bytesMergesAnArrayWithThePostgresqlTextsOfTheSameBytes() {
        byte[] key = { 0x0a, (byte) 0xff, 0x5c };
        assertThat(bytes(KeyType.BYTES, key)).isEqualTo(KeyEncoding.canonicalBytes(key))
                .isEqualTo(bytes(KeyType.BYTES, "\\x0aff5c")).isEqualTo(bytes(KeyType.BYTES, "\\x0AFF5C"))
                .isEqualTo(bytes(KeyType.BYTES, "\\012\\377\\\\"));
        assertThat(bytes(KeyType.BYTES, "abc")).isEqualTo(bytes(KeyType.BYTES, "abc".getBytes()));
        assertThat(KeyType.BYTES.canonical("\\xzz")).isEqualTo("\\xzz");
    }

    @Test
    void namesEachTypeAsItsPropertyValue() {
        assertThat(KeyType.TEXT_CASE_INSENSITIVE.id()).isEqualTo("text-case-insensitive");
        assertThat(KeyType.INTEGER.id()).isEqualTo("integer");
        assertThat(KeyType.CHAR.id()).isEqualTo("char");
    }

    @Test
    void landsEveryIntegerAndUuidSpellingOnTheGoldenOffsetsOfItsJavaValue() {
        FilterGeometry geometry = FilterGeometry.of(1_000_000, 0.01);
        assertThat(BitPositions.of(KeyType.INTEGER.canonical(" 0042"), geometry.bits(), geometry.hashes()))
                .containsExactly(3216620, 8610447, 4419186, 227925, 5621752, 1430491, 6824318);
        assertThat(BitPositions.of(KeyType.UUID.canonical("{123E4567-E89B-12D3-A456-426614174000}"), geometry.bits(),
                geometry.hashes())).containsExactly(8893957, 1886348, 1799635, 1712922, 4290401, 4203688, 4116975);
    }

    private static byte[] bytes(KeyType type, Object key) {
        return KeyEncoding.canonicalBytes(type.canonical(key));
    }
}
