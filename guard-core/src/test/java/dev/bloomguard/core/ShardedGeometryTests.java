package dev.bloomguard.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;

import dev.bloomguard.core.hash.BitPositions;

/** Shards: a filter past one Redis string's 2^32 bits, and the one-shard case left exactly as it was. */
class ShardedGeometryTests {

    private static final long SIXTY_FOUR_MIB_OF_BITS = 64L * 1024 * 1024 * 8;

    @Test
    void aFilterThatFitsOneShardKeepsTheUnshardedGeometryAndKeyNames() {
        FilterGeometry plain = FilterGeometry.of(1_000_000, 0.01);
        FilterGeometry sharded = FilterGeometry.sharded(1_000_000, 0.01, SIXTY_FOUR_MIB_OF_BITS);
        assertThat(sharded).isEqualTo(plain);
        assertThat(sharded.shards()).isEqualTo(1);
        assertThat(sharded.id()).isEqualTo("m9585088k7");
        assertThat(FilterKeys.of("bg", "user", sharded).live()).isEqualTo("bg:v1:{user:m9585088k7:0}");
    }

    @Test
    void acceptsAndShardsAFilterLargerThanOneRedisString() {
        FilterGeometry geometry = FilterGeometry.sharded(10_000_000_000L, 0.01, SIXTY_FOUR_MIB_OF_BITS);
        long rawBits = FilterGeometry.optimalNumOfBits(10_000_000_000L, 0.01);
        assertThat(rawBits).isGreaterThan(1L << 32);
        assertThat(geometry.shards()).isEqualTo(179);
        assertThat(geometry.bits()).isLessThanOrEqualTo(SIXTY_FOUR_MIB_OF_BITS);
        assertThat(geometry.totalBits()).isGreaterThanOrEqualTo(rawBits);
        assertThat(geometry.hashes()).isEqualTo(7);
        assertThat(geometry.id()).endsWith("k7s179");
        assertThat(geometry.expectedFpp(10_000_000_000L)).isBetween(0.0095, 0.0105);
        FilterKeys keys = FilterKeys.of("bg", "user", geometry);
        assertThat(keys.live(178)).isEqualTo("bg:v1:{user:" + geometry.id() + ":178}");
    }

    @Test
    void refusesAnUnshardedFilterLargerThanOneRedisStringAndSaysToShardIt() {
        assertThatIllegalArgumentException().isThrownBy(() -> FilterGeometry.of(10_000_000_000L, 0.01))
                .withMessageContaining("more than one Redis string holds").withMessageContaining("shard it");
    }

    @Test
    void refusesShardCountsThatCannotWork() {
        assertThatIllegalArgumentException().isThrownBy(() -> FilterGeometry.withShards(1_000, 0.01, 0))
                .withMessageContaining("shards (0)");
        assertThatIllegalArgumentException().isThrownBy(() -> FilterGeometry.withShards(10_000_000_000L, 0.01, 2))
                .withMessageContaining("use more shards");
        assertThatIllegalArgumentException().isThrownBy(() -> FilterGeometry.sharded(1_000, 0.01, 10))
                .withMessageContaining("maximum shard size (10 bits)");
    }

    @Test
    void spreadsKeysEvenlyOverShardsAndLeavesOneShardFiltersAlone() {
        FilterGeometry geometry = FilterGeometry.withShards(1_000_000, 0.01, 8);
        int[] perShard = new int[8];
        long[] offsets = new long[geometry.hashes()];
        for (long id = 1; id <= 100_000; id++) {
            perShard[BitPositions.fillSharded(id, geometry.bits(), geometry.hashes(), 8, offsets, 0)]++;
        }
        for (int count : perShard) {
            assertThat(count).isBetween(11_500, 13_500);
        }
        long[] unsharded = new long[7];
        assertThat(BitPositions.fillSharded("alice", 9_585_088, 7, 1, offsets, 0)).isZero();
        BitPositions.fill("alice", 9_585_088, 7, unsharded, 0);
        assertThat(offsets).containsExactly(unsharded);
    }
}
