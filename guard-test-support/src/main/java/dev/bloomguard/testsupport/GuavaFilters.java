package dev.bloomguard.testsupport;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;

/**
 * Guava's own {@link BloomFilter}, read back through its serialized form, as the reference our
 * sizing and hashing must agree with. The form is: one byte strategy ordinal, one unsigned byte
 * hash count, a big-endian int word count, then the words; bit i is bit (i &amp; 63) of word i &gt;&gt;&gt; 6.
 */
public record GuavaFilters(int strategyOrdinal, int hashes, long[] words) {

    public static BloomFilter<CharSequence> create(long expectedInsertions, double fpp) {
        return BloomFilter.create(Funnels.stringFunnel(UTF_8), expectedInsertions, fpp);
    }

    public static GuavaFilters serialized(BloomFilter<?> filter) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            filter.writeTo(out);
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(out.toByteArray()));
            int strategy = in.readUnsignedByte();
            int hashes = in.readUnsignedByte();
            long[] words = new long[in.readInt()];
            for (int i = 0; i < words.length; i++) {
                words[i] = in.readLong();
            }
            if (in.read() != -1) {
                throw new IllegalStateException("trailing bytes after Guava's serialized filter");
            }
            return new GuavaFilters(strategy, hashes, words);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    public long bitSize() {
        return words.length * 64L;
    }

    /** Offsets of the set bits, ascending. */
    public List<Long> setBits() {
        List<Long> set = new ArrayList<>();
        for (int word = 0; word < words.length; word++) {
            long bits = words[word];
            while (bits != 0) {
                int bit = Long.numberOfTrailingZeros(bits);
                set.add(((long) word << 6) + bit);
                bits &= bits - 1;
            }
        }
        return set;
    }
}
