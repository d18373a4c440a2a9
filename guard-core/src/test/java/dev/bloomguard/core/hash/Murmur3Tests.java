package dev.bloomguard.core.hash;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;

import com.google.common.hash.HashCode;
import com.google.common.hash.Hashing;
import com.google.common.primitives.Longs;

/** The allocation-free hash must be Guava's murmur3_128, bit for bit, for every length and byte. */
class Murmur3Tests {

    @Test
    void equalsGuavaForEveryLengthUpToThreeBlocksAndRandomBytes() {
        Random random = new Random(20261129);
        for (int length = 0; length <= 48; length++) {
            for (int sample = 0; sample < 200; sample++) {
                byte[] bytes = new byte[length];
                random.nextBytes(bytes);
                assertSameAsGuava(bytes);
            }
        }
    }

    @Test
    void equalsGuavaForDecimalKeys() {
        Random random = new Random(7);
        for (int sample = 0; sample < 10_000; sample++) {
            long value = sample < 5_000 ? sample - 2_500 : random.nextLong();
            byte[] digits = new byte[20];
            int length = BitPositions.decimal(value, digits);
            byte[] expected = Long.toString(value).getBytes(StandardCharsets.US_ASCII);
            assertThat(Arrays.copyOf(digits, length)).as("digits of %s", value).isEqualTo(expected);
            assertSameAsGuava(expected);
        }
        byte[] digits = new byte[20];
        int length = BitPositions.decimal(Long.MIN_VALUE, digits);
        assertThat(new String(digits, 0, length, StandardCharsets.US_ASCII)).isEqualTo(Long.toString(Long.MIN_VALUE));
        length = BitPositions.decimal(Long.MAX_VALUE, digits);
        assertThat(new String(digits, 0, length, StandardCharsets.US_ASCII)).isEqualTo(Long.toString(Long.MAX_VALUE));
    }

    private static void assertSameAsGuava(byte[] bytes) {
        HashCode guava = Hashing.murmur3_128().hashBytes(bytes);
        byte[] raw = guava.asBytes();
        long expectedFirst = guava.asLong();
        long expectedSecond = Longs.fromBytes(raw[15], raw[14], raw[13], raw[12], raw[11], raw[10], raw[9], raw[8]);
        long[] second = new long[1];
        assertThat(Murmur3.hash(bytes, bytes.length, second)).isEqualTo(expectedFirst);
        assertThat(second[0]).isEqualTo(expectedSecond);
    }
}
