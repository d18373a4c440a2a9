package dev.bloomguard.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import dev.bloomguard.testsupport.GuavaFilters;

class FilterGeometryTests {

    @ParameterizedTest(name = "n={0}, p={1} -> {2} bits, {3} hashes")
    @CsvSource({
            "1000000,  0.01,   9585088,   7",
            "1000,     0.03,   7360,      5",
            "1,        0.5,    64,        1",
            "200000,   0.001,  2875520,   10",
            "10000000, 0.0001, 191701184, 13",
    })
    void sizesFromTheGoldenTable(long n, double p, long bits, int hashes) {
        FilterGeometry geometry = FilterGeometry.of(n, p);

        assertThat(geometry.bits()).isEqualTo(bits);
        assertThat(geometry.hashes()).isEqualTo(hashes);
        assertThat(geometry.expectedInsertions()).isEqualTo(n);
        assertThat(geometry.fpp()).isEqualTo(p);
    }

    @ParameterizedTest(name = "n={0}, p={1}")
    @CsvSource({
            "1, 0.5", "1, 0.01", "63, 0.2", "1000, 0.03", "12345, 0.05", "1000000, 0.01",
            "200000, 0.001", "3000000, 0.0001", "10, 0.000001", "500, 0.9",
    })
    void sizesExactlyAsGuavasOwnBloomFilter(long n, double p) {
        GuavaFilters guava = GuavaFilters.serialized(GuavaFilters.create(n, p));

        FilterGeometry geometry = FilterGeometry.of(n, p);

        assertThat(geometry.bits()).isEqualTo(guava.bitSize());
        assertThat(geometry.hashes()).isEqualTo(guava.hashes());
    }

    @Test
    void roundsBitsUpToWholeWordsAndKeepsTheMarkerInAnExtraByte() {
        FilterGeometry geometry = FilterGeometry.of(1000, 0.03);

        assertThat(geometry.bits() % 64).isZero();
        assertThat(geometry.markerOffset()).isEqualTo(geometry.bits());
        assertThat(geometry.byteSize()).isEqualTo(geometry.bits() / 8 + 1);
        assertThat(geometry.byteSize() * 8).isGreaterThan(geometry.markerOffset());
    }

    @ParameterizedTest(name = "n={0}, p={1}")
    @CsvSource({"1000000, 0.01", "200000, 0.001", "1000, 0.03", "50000000, 0.05"})
    void expectsTheConfiguredFppAtTheExpectedInsertions(long n, double p) {
        FilterGeometry geometry = FilterGeometry.of(n, p);

        assertThat(geometry.expectedFpp(n)).isCloseTo(p, within(p * 0.1));
        assertThat(geometry.expectedFpp(n / 2)).isLessThan(p);
        assertThat(geometry.expectedFpp(n * 2)).isGreaterThan(p);
        assertThat(geometry.expectedFpp(0)).isZero();
    }

    @ParameterizedTest
    @ValueSource(longs = {0, -1, Long.MIN_VALUE})
    void rejectsFewerThanOneExpectedInsertionQuotingTheValue(long n) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> FilterGeometry.of(n, 0.01))
                .withMessageContaining("expected-insertions")
                .withMessageContaining("(" + n + ")");
    }

    @ParameterizedTest
    @ValueSource(doubles = {0.0, 1.0, -0.01, 1.5, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY})
    void rejectsAnFppOutsideZeroToOneQuotingTheValue(double fpp) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> FilterGeometry.of(1000, fpp))
                .withMessageContaining("fpp")
                .withMessageContaining("(" + fpp + ")");
    }

    @Test
    void acceptsTheLargestFilterOneRedisStringHolds() {
        // At 1% a key needs 9.585 bits, so about 448,089,835 keys fill 2^32 - 64 bits.
        FilterGeometry geometry = FilterGeometry.of(448_089_000, 0.01);

        assertThat(geometry.bits()).isLessThanOrEqualTo(FilterGeometry.MAX_BITS);
        assertThat(geometry.markerOffset()).isLessThan(1L << 32);
        assertThat(geometry.byteSize()).isLessThanOrEqualTo(512L * 1024 * 1024);
    }

    @ParameterizedTest(name = "n={0}, p={1}")
    @CsvSource({
            "1000000000, 0.01",
            "448091000, 0.01",
            "1000000000000000000, 0.01",
            "9223372036854775807, 0.01",
            "9223372036854775807, 0.5",
    })
    void rejectsAFilterLargerThanOneRedisString(long n, double p) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> FilterGeometry.of(n, p))
                .withMessageContaining("more than one Redis string holds")
                .withMessageContaining(Long.toString(n));
    }

    @Test
    void sameBitsAndHashesAreTheSameGeometryWhateverTheyWereSizedFrom() {
        FilterGeometry sized = FilterGeometry.of(1_000_000, 0.01);
        FilterGeometry almostSame = FilterGeometry.of(1_000_001, 0.01);
        FilterGeometry other = FilterGeometry.of(2_000_000, 0.01);

        assertThat(almostSame.bits()).isEqualTo(sized.bits());
        assertThat(almostSame).isEqualTo(sized).hasSameHashCodeAs(sized);
        assertThat(almostSame.id()).isEqualTo(sized.id()).isEqualTo("m9585088k7");
        assertThat(other).isNotEqualTo(sized);
        assertThat(other.id()).isNotEqualTo(sized.id());
    }
}
