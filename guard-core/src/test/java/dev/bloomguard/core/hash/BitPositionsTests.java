package dev.bloomguard.core.hash;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import com.google.common.hash.BloomFilter;

import dev.bloomguard.testsupport.GuavaFilters;
import dev.bloomguard.core.FilterGeometry;

/**
 * Bit offsets are stored format: the bits in Redis outlive a deploy, so a key must land on the
 * same offsets in every version. The golden numbers below were computed once and must never change.
 */
class BitPositionsTests {

    private static final FilterGeometry MILLION_AT_ONE_PERCENT = FilterGeometry.of(1_000_000, 0.01);

    @Test
    void pinsTheOffsetsOfAStringKey() {
        assertThat(offsets("alice")).containsExactly(801194, 8097997, 5809712, 3521427, 1233142, 8529945, 6241660);
    }

    @Test
    void pinsTheOffsetsOfALongKey() {
        assertThat(offsets(42L)).containsExactly(3216620, 8610447, 4419186, 227925, 5621752, 1430491, 6824318);
    }

    @Test
    void pinsTheOffsetsOfAUuidKey() {
        assertThat(offsets(UUID.fromString("123e4567-e89b-12d3-a456-426614174000")))
                .containsExactly(8893957, 1886348, 1799635, 1712922, 4290401, 4203688, 4116975);
    }

    @Test
    void pinsTheOffsetsOfANonAsciiKeyHashedAsUtf8() {
        assertThat(offsets("é")).containsExactly(7284584, 9151975, 1434278, 3301669, 5169060, 7036451, 8903842);
    }

    @Test
    void givesEveryNumericTypeOfTheSameIntegerTheSameOffsets() {
        long[] expected = offsets(42L);

        assertThat(offsets(42)).containsExactly(expected);
        assertThat(offsets((short) 42)).containsExactly(expected);
        assertThat(offsets((byte) 42)).containsExactly(expected);
        assertThat(offsets("42")).containsExactly(expected);
        assertThat(offsets(new BigDecimal("42.000"))).containsExactly(expected);
        assertThat(offsets(BigInteger.valueOf(42))).containsExactly(expected);
        assertThat(offsets(42.0d)).containsExactly(expected);
    }

    @Test
    void givesDifferentKeysDifferentOffsets() {
        assertThat(offsets(43L)).isNotEqualTo(offsets(42L));
        assertThat(offsets("Alice")).isNotEqualTo(offsets("alice"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"alice", "42", "123e4567-e89b-12d3-a456-426614174000", "", "é", "日本語のキー",
            "user:12345:profile", "a much longer key that spans more than one sixteen byte murmur block"})
    void setsExactlyTheBitsGuavasOwnBloomFilterSets(String key) {
        BloomFilter<CharSequence> guava = GuavaFilters.create(1_000_000, 0.01);
        guava.put(key);

        List<Long> guavaBits = GuavaFilters.serialized(guava).setBits();

        assertThat(guavaBits).containsExactlyElementsOf(distinctSorted(offsets(key)));
    }

    @ParameterizedTest(name = "n={0}, p={1}")
    @CsvSource({"1, 0.5", "1000, 0.03", "200000, 0.001", "3000000, 0.0001"})
    void agreesWithGuavaAtOtherGeometries(long n, double p) {
        FilterGeometry geometry = FilterGeometry.of(n, p);
        for (String key : List.of("alice", "bob", "123e4567-e89b-12d3-a456-426614174000", "9007199254740993")) {
            BloomFilter<CharSequence> guava = GuavaFilters.create(n, p);
            guava.put(key);

            List<Long> guavaBits = GuavaFilters.serialized(guava).setBits();

            assertThat(guavaBits).as("bits of %s", key).containsExactlyElementsOf(
                    distinctSorted(BitPositions.of(key, geometry.bits(), geometry.hashes())));
        }
    }

    @Test
    void fillsOnlyItsSliceOfTheTargetArray() {
        int hashes = MILLION_AT_ONE_PERCENT.hashes();
        long[] into = new long[hashes * 3];
        Arrays.fill(into, -1);

        BitPositions.fill("alice", MILLION_AT_ONE_PERCENT.bits(), hashes, into, hashes);

        assertThat(Arrays.copyOfRange(into, 0, hashes)).containsOnly(-1L);
        assertThat(Arrays.copyOfRange(into, hashes, 2 * hashes)).containsExactly(offsets("alice"));
        assertThat(Arrays.copyOfRange(into, 2 * hashes, 3 * hashes)).containsOnly(-1L);
    }

    @Test
    void keepsEveryOffsetInsideTheFilter() {
        long bits = FilterGeometry.of(1000, 0.03).bits();
        long[] all = LongStream.range(0, 10_000).flatMap(id -> LongStream.of(BitPositions.of(id, bits, 5))).toArray();

        assertThat(LongStream.of(all).min().getAsLong()).isZero();
        assertThat(LongStream.of(all).max().getAsLong()).isEqualTo(bits - 1);
    }

    private static long[] offsets(Object key) {
        return BitPositions.of(key, MILLION_AT_ONE_PERCENT.bits(), MILLION_AT_ONE_PERCENT.hashes());
    }

    private static List<Long> distinctSorted(long[] offsets) {
        return Arrays.stream(offsets).distinct().sorted().boxed().toList();
    }
}
