package dev.bloomguard.core.hash;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import com.google.common.hash.HashCode;
import com.google.common.hash.Hashing;

import dev.bloomguard.core.FilterGeometry;

/**
 * The check path hashes integer keys through a per-thread digit buffer, so that a check
 * allocates nothing. Offsets are stored format: for every key type {@link KeyEncoding} takes,
 * {@link BitPositions#fillSharded} must give what hashing the key's canonical bytes gives,
 * computed here the plain way (Guava's murmur3_128 and sipHash24 over
 * {@link KeyEncoding#canonicalBytes}, then Guava's double hashing), on many threads at once.
 */
class HashWithoutAllocatingTests {

    private static final FilterGeometry SHARDED = FilterGeometry.withShards(1_000_000, 0.01, 7);
    private static final String SECRET = "000102030405060708090a0b0c0d0e0f";

    private enum Colour { RED, GREEN }

    private record Sku(String code) {
        @Override
        public String toString() {
            return "sku:" + code;
        }
    }

    @Test
    void givesEveryKeyTypeTheOffsetsAndShardOfItsCanonicalBytes() throws Exception {
        List<Object> keys = keysOfEveryType();
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Future<Integer>> compared = new ArrayList<>();
            for (int thread = 0; thread < 4; thread++) {
                compared.add(threads.submit(() -> {
                    for (Object key : keys) {
                        assertSameAsCanonicalBytes(KeyHash.murmur3(), key);
                        assertSameAsCanonicalBytes(KeyHash.sipHash(SECRET), key);
                    }
                    return keys.size();
                }));
            }
            for (Future<Integer> done : compared) {
                assertThat(done.get()).isEqualTo(keys.size());
            }
        }
        finally {
            threads.shutdownNow();
        }
    }

    /** Integers of every width and sign, with digit counts from 1 to 20, in an order that shortens and lengthens them. */
    private static List<Object> keysOfEveryType() {
        Random random = new Random(15);
        List<Object> keys = new ArrayList<>();
        long[] edges = { 0, 1, -1, 9, 10, -10, 99, 100, Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1,
                Integer.MAX_VALUE, Integer.MIN_VALUE, 1_000_000_000_000_000_000L, 999_999_999_999_999_999L };
        for (long edge : edges) {
            keys.add(edge);
            keys.add(BigInteger.valueOf(edge));
            keys.add(new AtomicLong(edge));
        }
        for (int i = 0; i < 2_000; i++) {
            long value = random.nextLong() >> random.nextInt(64);
            keys.add(value);
            keys.add((int) value);
            keys.add((short) value);
            keys.add((byte) value);
            keys.add(new AtomicInteger((int) value));
            keys.add(Long.toString(value));
            keys.add(UUID.randomUUID());
            keys.add(BigDecimal.valueOf(value, random.nextInt(5)));
            keys.add(random.nextDouble() * value);
            keys.add((float) value / 8);
            byte[] bytes = new byte[random.nextInt(40)];
            random.nextBytes(bytes);
            keys.add(bytes);
            keys.add(new StringBuilder("user-").append(value));
            keys.add("é" + value + "\u4e2d");
            keys.add(Colour.values()[i % 2]);
            keys.add(new Sku(Integer.toHexString(i)));
        }
        return keys;
    }

    private static void assertSameAsCanonicalBytes(KeyHash hash, Object key) {
        long[] offsets = new long[SHARDED.hashes() + 2];
        offsets[0] = -1;
        offsets[offsets.length - 1] = -1;
        int shard = BitPositions.fillSharded(hash, key, SHARDED.bits(), SHARDED.hashes(), SHARDED.shards(), offsets, 1);

        byte[] bytes = KeyEncoding.canonicalBytes(key);
        long first;
        long second;
        if (hash.algorithm() == KeyHash.Algorithm.MURMUR3) {
            ByteBuffer halves = ByteBuffer.wrap(Hashing.murmur3_128().hashBytes(bytes).asBytes())
                    .order(ByteOrder.LITTLE_ENDIAN);
            first = halves.getLong();
            second = halves.getLong();
        }
        else {
            ByteBuffer secret = ByteBuffer.wrap(HexFormat.of().parseHex(SECRET)).order(ByteOrder.LITTLE_ENDIAN);
            HashCode sip = Hashing.sipHash24(secret.getLong(), secret.getLong()).hashBytes(bytes);
            first = sip.asLong();
            second = Murmur3.fmix64(first);
        }
        long[] expected = new long[SHARDED.hashes()];
        long combined = first;
        for (int i = 0; i < expected.length; i++) {
            expected[i] = (combined & Long.MAX_VALUE) % SHARDED.bits();
            combined += second;
        }
        int expectedShard = (int) Long.remainderUnsigned(Murmur3.fmix64(first ^ Long.rotateLeft(second, 32)),
                SHARDED.shards());

        String what = hash + " of " + key.getClass().getSimpleName() + " " + KeyEncoding.canonicalText(key);
        assertThat(shard).as(what).isEqualTo(expectedShard);
        assertThat(Arrays.copyOfRange(offsets, 1, offsets.length - 1)).as(what).containsExactly(expected);
        assertThat(offsets[0]).as("before the slice").isEqualTo(-1);
        assertThat(offsets[offsets.length - 1]).as("after the slice").isEqualTo(-1);
    }
}
