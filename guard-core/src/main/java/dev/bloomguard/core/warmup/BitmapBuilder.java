package dev.bloomguard.core.warmup;

import static dev.bloomguard.core.internal.Arguments.checkArgument;

import dev.bloomguard.core.FilterGeometry;

/**
 * A filter's bitmap built in memory, in Redis's bit order (offset 0 is the most significant
 * bit of byte 0), so it can be uploaded as a whole string instead of k {@code SETBIT}s a key.
 * Not thread-safe: one warmup fills one builder.
 */
public final class BitmapBuilder {

    private final FilterGeometry geometry;
    private final byte[] bytes;

    private BitmapBuilder(FilterGeometry geometry) {
        this.geometry = geometry;
        this.bytes = new byte[Math.toIntExact(geometry.byteSize())];
    }

    public static BitmapBuilder forGeometry(FilterGeometry geometry) {
        checkArgument(geometry.byteSize() < Integer.MAX_VALUE - 8,
                "a bitmap of %s bytes cannot be built in one Java array", geometry.byteSize());
        return new BitmapBuilder(geometry);
    }

    public void set(long offset) {
        bytes[(int) (offset >>> 3)] |= (byte) (0x80 >>> (offset & 7));
    }

    public void setAll(long[] offsets, int from, int count) {
        for (int i = from; i < from + count; i++) {
            set(offsets[i]);
        }
    }

    public boolean get(long offset) {
        return (bytes[(int) (offset >>> 3)] & (0x80 >>> (offset & 7))) != 0;
    }

    /** Sets the ready marker: call last, once every key is in. */
    public void markComplete() {
        set(geometry.markerOffset());
    }

    /** The bitmap itself (not a copy): what gets uploaded. */
    public byte[] bytes() {
        return bytes;
    }

    /** Number of set filter bits, marker excluded. */
    public long bitCount() {
        long count = 0;
        for (byte b : bytes) {
            count += Integer.bitCount(b & 0xFF);
        }
        return get(geometry.markerOffset()) ? count - 1 : count;
    }
}
