package dev.bloomguard.core.hash;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.google.common.hash.HashFunction;
import com.google.common.hash.Hashing;

import dev.bloomguard.core.FilterGeometry;

/**
 * Siphash offsets are stored format just as murmur3's are ({@code BitPositionsTests}), and are
 * pinned the same way: to an independent implementation, Guava's {@code Hashing.sipHash24(k0, k1)},
 * and to golden numbers computed once that must never change.
 */
class SipHashPositionsTests {

    /** The key of the SipHash paper's test vectors: bytes 00..0f, so k0 and k1 read little-endian. */
    private static final String PAPER_SECRET = "000102030405060708090a0b0c0d0e0f";
    private static final long PAPER_K0 = 0x0706050403020100L;
    private static final long PAPER_K1 = 0x0f0e0d0c0b0a0908L;
    private static final String OTHER_SECRET = "9F86D081884C7D659A2FEAA0C55AD015";
    private static final FilterGeometry MILLION_AT_ONE_PERCENT = FilterGeometry.of(1_000_000, 0.01);

    @Test
    void matchesTheSipHashPapersTestVectors() {
        byte[] fifteen = new byte[15];
        for (int i = 0; i < fifteen.length; i++) {
            fifteen[i] = (byte) i;
        }

        assertThat(KeyHash.sipHash24(PAPER_K0, PAPER_K1, fifteen, 15)).isEqualTo(0xa129ca6149be45e5L);
        assertThat(KeyHash.sipHash24(PAPER_K0, PAPER_K1, new byte[0], 0)).isEqualTo(0x726fdb47dd0e0e31L);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "a", "alice", "1234567", "12345678", "123456789", "123e4567-e89b-12d3-a456-426614174000",
            "é", "日本語のキー", "user:12345:profile", "a much longer key that spans more than a few eight byte blocks"})
    void hashesAsGuavasSipHash24(String key) {
        for (String secret : List.of(PAPER_SECRET, OTHER_SECRET)) {
            byte[] bytes = key.getBytes(UTF_8);
            long[] second = new long[1];

            long first = KeyHash.sipHash(secret).hash(bytes, bytes.length, second);

            assertThat(first).as("%s under secret %s", key, secret).isEqualTo(guava(secret).hashBytes(bytes).asLong());
            assertThat(second[0]).isEqualTo(fmix64(first));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"alice", "bob", "42", "123e4567-e89b-12d3-a456-426614174000", "é"})
    void setsTheOffsetsDoubleHashingGivesFromGuavasSipHash24(String key) {
        for (FilterGeometry geometry : List.of(MILLION_AT_ONE_PERCENT, FilterGeometry.of(1000, 0.03),
                FilterGeometry.of(3_000_000, 0.0001))) {
            long[] expected = guavaOffsets(OTHER_SECRET, key, geometry.bits(), geometry.hashes());

            assertThat(BitPositions.of(KeyHash.sipHash(OTHER_SECRET), key, geometry.bits(), geometry.hashes()))
                    .as("%s in %s", key, geometry).containsExactly(expected);
        }
    }

    @Test
    void pinsTheOffsetsOfAStringKey() {
        assertThat(offsets("alice")).containsExactly(7970659, 6908279, 8510091, 526815, 2128627, 3730439, 5332251);
    }

    @Test
    void pinsTheOffsetsOfALongKey() {
        assertThat(offsets(42L)).containsExactly(5207251, 9118413, 780295, 4691457, 5938427, 264501, 1511471);
    }

    @Test
    void pinsTheOffsetsOfAUuidKey() {
        assertThat(offsets(UUID.fromString("123e4567-e89b-12d3-a456-426614174000")))
                .containsExactly(8708110, 5752117, 131932, 6761027, 1140842, 7769937, 4813944);
    }

    /** Same as {@code printf 'bloom-guard siphash secret:' + bytes 00..0f | sha256sum | cut -c1-8}. */
    @Test
    void pinsTheIdInKeyNames() {
        assertThat(KeyHash.sipHash(PAPER_SECRET).id()).isEqualTo("sip-62c27cf4");
        assertThat(KeyHash.murmur3().id()).isEqualTo("murmur3");
    }

    @Test
    void givesEveryNumericTypeOfTheSameIntegerTheSameOffsetsAsItsText() {
        long[] expected = guavaOffsets(PAPER_SECRET, "42", MILLION_AT_ONE_PERCENT.bits(), MILLION_AT_ONE_PERCENT.hashes());

        for (Object key : List.of(42L, 42, (short) 42, (byte) 42, "42", new BigDecimal("42.000"), BigInteger.valueOf(42),
                42.0d)) {
            assertThat(offsets(key)).as("%s (%s)", key, key.getClass().getSimpleName()).containsExactly(expected);
        }
        assertThat(offsets(-9_223_372_036_854_775_808L))
                .containsExactly(offsets("-9223372036854775808"));
    }

    @Test
    void choosesTheShardFromTheKeyedHash() {
        int shards = 16;
        KeyHash sipHash = KeyHash.sipHash(OTHER_SECRET);
        List<Integer> keyedShards = new ArrayList<>();
        List<Integer> murmurShards = new ArrayList<>();
        Set<Integer> used = new HashSet<>();
        for (int id = 0; id < 1_000; id++) {
            long[] offsets = new long[7];
            int shard = BitPositions.fillSharded(sipHash, (long) id, 1_000_000, 7, shards, offsets, 0);
            long first = guava(OTHER_SECRET).hashBytes(Long.toString(id).getBytes(UTF_8)).asLong();
            assertThat(shard).isEqualTo((int) Long.remainderUnsigned(fmix64(first ^ Long.rotateLeft(fmix64(first), 32)),
                    shards));
            keyedShards.add(shard);
            murmurShards.add(BitPositions.fillSharded((long) id, 1_000_000, 7, shards, offsets, 0));
            used.add(shard);
        }

        assertThat(keyedShards).isNotEqualTo(murmurShards);
        assertThat(used).hasSize(shards);
    }

    @Test
    void givesAnotherSecretOtherOffsetsAndAnotherId() {
        KeyHash one = KeyHash.sipHash(PAPER_SECRET);
        KeyHash other = KeyHash.sipHash(OTHER_SECRET);

        assertThat(BitPositions.of(other, "alice", 1_000_000, 7)).isNotEqualTo(BitPositions.of(one, "alice", 1_000_000, 7));
        assertThat(BitPositions.of(one, "alice", 1_000_000, 7)).isNotEqualTo(BitPositions.of("alice", 1_000_000, 7));
        assertThat(other.id()).matches("sip-[0-9a-f]{8}").isNotEqualTo(one.id());
        assertThat(KeyHash.sipHash(OTHER_SECRET.toLowerCase())).isEqualTo(other);
        assertThat(KeyHash.isValidId(other.id())).isTrue();
    }

    @Test
    void makesFreshSecretsThatDiffer() {
        List<String> secrets = IntStream.range(0, 100).mapToObj(i -> KeyHash.newSecret()).toList();

        assertThat(secrets).allMatch(KeyHash::isValidSecret).doesNotHaveDuplicates();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "000102030405060708090a0b0c0d0e0", "000102030405060708090a0b0c0d0e0f0",
            "000102030405060708090a0b0c0d0e0g", "0x0102030405060708090a0b0c0d0e0f", "correct horse battery staple!!!!"})
    void rejectsASecretThatIsNotThirtyTwoHexDigitsWithoutQuotingIt(String secret) {
        assertThatIllegalArgumentException().isThrownBy(() -> KeyHash.sipHash(secret))
                .withMessageContaining("32 hexadecimal digits")
                .withMessageNotContaining(secret.isEmpty() ? "\u0000" : secret);
    }

    @Test
    void neverShowsTheSecret() {
        KeyHash hash = KeyHash.sipHash(OTHER_SECRET);

        assertThat(hash.toString()).isEqualTo("siphash[" + hash.id() + "]")
                .doesNotContainIgnoringCase(OTHER_SECRET.substring(0, 8));
    }

    private static long[] offsets(Object key) {
        return BitPositions.of(KeyHash.sipHash(PAPER_SECRET), key, MILLION_AT_ONE_PERCENT.bits(),
                MILLION_AT_ONE_PERCENT.hashes());
    }

    /** Guava's SipHash-2-4 keyed as the secret's bytes read little-endian. */
    private static HashFunction guava(String secret) {
        byte[] bytes = new byte[16];
        for (int i = 0; i < 16; i++) {
            bytes[i] = (byte) Integer.parseInt(secret.substring(2 * i, 2 * i + 2), 16);
        }
        long k0 = 0;
        long k1 = 0;
        for (int i = 7; i >= 0; i--) {
            k0 = k0 << 8 | (bytes[i] & 0xff);
            k1 = k1 << 8 | (bytes[8 + i] & 0xff);
        }
        return Hashing.sipHash24(k0, k1);
    }

    /** Guava's MURMUR128_MITZ_64 double hashing over (Guava's siphash, its fmix64). */
    private static long[] guavaOffsets(String secret, String key, long bits, int hashes) {
        long hash1 = guava(secret).hashBytes(key.getBytes(UTF_8)).asLong();
        long hash2 = fmix64(hash1);
        long[] offsets = new long[hashes];
        long combined = hash1;
        for (int i = 0; i < hashes; i++) {
            offsets[i] = (combined & Long.MAX_VALUE) % bits;
            combined += hash2;
        }
        return offsets;
    }

    /** MurmurHash3's 64-bit finaliser, as published. */
    private static long fmix64(long k) {
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        k *= 0xc4ceb9fe1a85ec53L;
        k ^= k >>> 33;
        return k;
    }
}
