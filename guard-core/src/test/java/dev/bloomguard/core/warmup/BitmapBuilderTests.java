package dev.bloomguard.core.warmup;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;

import org.junit.jupiter.api.Test;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.hash.BitPositions;

class BitmapBuilderTests {

    private static final FilterGeometry GEOMETRY = FilterGeometry.of(1000, 0.03);

    @Test
    void sizesTheBitmapToTheGeometryMarkerIncluded() {
        BitmapBuilder bitmap = BitmapBuilder.forGeometry(GEOMETRY);

        assertThat(bitmap.bytes()).hasSize((int) GEOMETRY.byteSize()).containsOnly(0);
        assertThat(bitmap.bitCount()).isZero();
    }

    @Test
    void setsBitsInRedisBitOrderMostSignificantBitFirst() {
        BitmapBuilder bitmap = BitmapBuilder.forGeometry(GEOMETRY);

        bitmap.set(0);
        bitmap.set(9);
        bitmap.set(23);

        assertThat(bitmap.bytes()[0]).isEqualTo((byte) 0x80);
        assertThat(bitmap.bytes()[1]).isEqualTo((byte) 0x40);
        assertThat(bitmap.bytes()[2]).isEqualTo((byte) 0x01);
        assertThat(bitmap.get(0)).isTrue();
        assertThat(bitmap.get(9)).isTrue();
        assertThat(bitmap.get(23)).isTrue();
        assertThat(bitmap.get(1)).isFalse();
        assertThat(bitmap.get(8)).isFalse();
        assertThat(bitmap.bitCount()).isEqualTo(3);
    }

    @Test
    void setsTheLastFilterBitInTheLastFilterByte() {
        BitmapBuilder bitmap = BitmapBuilder.forGeometry(GEOMETRY);

        bitmap.set(GEOMETRY.bits() - 1);

        assertThat(bitmap.bytes()[(int) (GEOMETRY.bits() / 8) - 1]).isEqualTo((byte) 0x01);
        assertThat(bitmap.get(GEOMETRY.markerOffset())).isFalse();
    }

    @Test
    void putsTheReadyMarkerAtTheMarkerOffset() {
        BitmapBuilder bitmap = BitmapBuilder.forGeometry(GEOMETRY);

        bitmap.markComplete();

        byte[] bytes = bitmap.bytes();
        int markerByte = (int) (GEOMETRY.markerOffset() >>> 3);
        assertThat(markerByte).isEqualTo(bytes.length - 1);
        assertThat(bytes[markerByte]).isEqualTo((byte) (0x80 >>> (GEOMETRY.markerOffset() & 7)));
        assertThat(bitmap.get(GEOMETRY.markerOffset())).isTrue();
        for (long offset = 0; offset < GEOMETRY.bits(); offset++) {
            assertThat(bitmap.get(offset)).isFalse();
        }
    }

    @Test
    void countsFilterBitsWithoutTheMarker() {
        BitmapBuilder bitmap = BitmapBuilder.forGeometry(GEOMETRY);
        bitmap.set(3);
        bitmap.set(64);
        bitmap.set(3);

        assertThat(bitmap.bitCount()).isEqualTo(2);
        bitmap.markComplete();
        assertThat(bitmap.bitCount()).isEqualTo(2);
    }

    @Test
    void setsEveryOffsetOfAKeyFromItsSliceOfTheArray() {
        BitmapBuilder bitmap = BitmapBuilder.forGeometry(GEOMETRY);
        long[] alice = BitPositions.of("alice", GEOMETRY.bits(), GEOMETRY.hashes());
        long[] padded = new long[alice.length + 2];
        padded[0] = 1;
        System.arraycopy(alice, 0, padded, 1, alice.length);
        padded[padded.length - 1] = 2;

        bitmap.setAll(padded, 1, alice.length);

        for (long offset : alice) {
            assertThat(bitmap.get(offset)).isTrue();
        }
        assertThat(bitmap.get(1)).as("outside the slice").isEqualTo(contains(alice, 1));
        assertThat(bitmap.get(2)).as("outside the slice").isEqualTo(contains(alice, 2));
        assertThat(bitmap.bitCount()).isEqualTo(Arrays.stream(alice).distinct().count());
    }

    private static boolean contains(long[] offsets, long offset) {
        return Arrays.stream(offsets).anyMatch(o -> o == offset);
    }
}
