package dev.bloomguard.core.redis;

/**
 * Bit offsets as 4-byte big-endian unsigned integers: the format of an adds-journal entry (which
 * the swap script reads back, see {@link LettuceBitmapStore}) and of an add event. An offset
 * within a shard is below 2^32, so four bytes hold any of them.
 */
public final class PackedOffsets {

    private PackedOffsets() {
    }

    /** {@code count} offsets of {@code offsets}, from index {@code from}, packed. */
    public static byte[] pack(long[] offsets, int from, int count) {
        byte[] packed = new byte[count * 4];
        for (int i = 0; i < count; i++) {
            long offset = offsets[from + i];
            packed[i * 4] = (byte) (offset >>> 24);
            packed[i * 4 + 1] = (byte) (offset >>> 16);
            packed[i * 4 + 2] = (byte) (offset >>> 8);
            packed[i * 4 + 3] = (byte) offset;
        }
        return packed;
    }

    /** The offset packed at {@code at}. */
    public static long unpack(byte[] packed, int at) {
        return (packed[at] & 0xffL) << 24 | (packed[at + 1] & 0xffL) << 16 | (packed[at + 2] & 0xffL) << 8
                | (packed[at + 3] & 0xffL);
    }

    /** Every offset packed in {@code packed} from {@code start} to its end. */
    public static long[] unpackAll(byte[] packed, int start) {
        long[] offsets = new long[(packed.length - start) / 4];
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = unpack(packed, start + i * 4);
        }
        return offsets;
    }
}
