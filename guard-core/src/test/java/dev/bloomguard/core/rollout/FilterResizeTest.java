package dev.bloomguard.core.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.hash.KeyType;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.LettuceBitmapStore;
import dev.bloomguard.core.redis.LettuceClients;
import dev.bloomguard.embedded.RedisServer;

/** The growth rule of auto-resize, and its decisions in a real redis-server: the first one stands. */
class FilterResizeTest {

    private static final FilterResize.Policy UNBOUNDED = new FilterResize.Policy(Long.MAX_VALUE, FilterGeometry.MAX_BITS);

    private static RedisServer redis;
    private static LettuceClients redisClient;
    private static BitmapStore store;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
        redisClient = LettuceClients.standalone(redis.port());
        store = LettuceBitmapStore.create(redisClient, Duration.ofSeconds(10));
    }

    @AfterAll
    static void stopRedis() {
        redisClient.close();
        redis.close();
    }

    @Test
    void doublesUntilTheLoadedKeysFillAtMostHalf() {
        FilterGeometry configured = FilterGeometry.of(2_000, 0.01);
        assertThat(UNBOUNDED.grow(configured, 6_000)).map(FilterGeometry::expectedInsertions).contains(16_000L);
        assertThat(UNBOUNDED.grow(configured, 2_001)).map(FilterGeometry::expectedInsertions).contains(8_000L);
        assertThat(UNBOUNDED.grow(configured, 4_000)).map(FilterGeometry::expectedInsertions).contains(8_000L);
        assertThat(UNBOUNDED.grow(configured, 4_001)).map(FilterGeometry::expectedInsertions).contains(16_000L);
        assertThat(UNBOUNDED.grow(configured, 6_000)).map(FilterGeometry::fpp).contains(0.01);
    }

    @Test
    void growsWithinTheLargestFilterAndShardAllowedAndNeverIntoFewerShards() {
        FilterGeometry configured = FilterGeometry.of(2_000, 0.01);
        long bytesOf8000 = FilterGeometry.of(8_000, 0.01).totalByteSize();
        FilterResize.Policy capped = new FilterResize.Policy(bytesOf8000, FilterGeometry.MAX_BITS);
        assertThat(capped.grow(configured, 6_000)).as("the largest doubling that fits")
                .map(FilterGeometry::expectedInsertions).contains(8_000L);
        FilterResize.Policy tooSmall = new FilterResize.Policy(configured.totalByteSize(), FilterGeometry.MAX_BITS);
        assertThat(tooSmall.grow(configured, 6_000)).as("not even one doubling fits").isEmpty();

        FilterResize.Policy smallShards = new FilterResize.Policy(Long.MAX_VALUE, 64 * 1024);
        assertThat(smallShards.grow(configured, 6_000).orElseThrow().shards()).as("shards of at most 64 Kib")
                .isEqualTo(3);
        FilterGeometry fourShards = FilterGeometry.withShards(2_000, 0.01, 4);
        assertThat(UNBOUNDED.grow(fourShards, 6_000).orElseThrow().shards()).isEqualTo(4);
    }

    @Test
    void theFirstDecisionStandsAndTheChainFollowsEveryLaterOne() {
        String from = FilterGenerations.descriptor(FilterGeometry.of(2_000, 0.01), KeyType.INTEGER);
        String first = FilterGenerations.descriptor(FilterGeometry.of(16_000, 0.01), KeyType.INTEGER);
        String second = FilterGenerations.descriptor(FilterGeometry.of(32_000, 0.01), KeyType.INTEGER);
        String later = FilterGenerations.descriptor(FilterGeometry.of(64_000, 0.01), KeyType.INTEGER);

        assertThat(FilterResize.decide(store, "resize-test", "user", from, first)).isEqualTo(first);
        assertThat(FilterResize.decide(store, "resize-test", "user", from, second))
                .as("another instance's count decides nothing once a decision is there").isEqualTo(first);
        assertThat(FilterResize.adopted(store, "resize-test", "user", from)).isEqualTo(first);

        assertThat(FilterResize.decide(store, "resize-test", "user", first, later)).isEqualTo(later);
        assertThat(FilterResize.chain(store, "resize-test", "user", from)).containsExactly(first, later);
        assertThat(FilterResize.adopted(store, "resize-test", "user", later)).isEqualTo(later);
    }

    @Test
    void aDecisionThatDoesNotGrowUnderTheSameFppAndKeyTypeIsNotFollowed() {
        String from = FilterGenerations.descriptor(FilterGeometry.of(2_000, 0.01), KeyType.INTEGER);
        store.setIfAbsent(FilterResize.key("resize-odd", "user", from),
                FilterGenerations.descriptor(FilterGeometry.of(1_000, 0.01), KeyType.INTEGER), Duration.ofMinutes(1));
        assertThat(FilterResize.chain(store, "resize-odd", "user", from)).isEmpty();

        store.setIfAbsent(FilterResize.key("resize-other-fpp", "user", from),
                FilterGenerations.descriptor(FilterGeometry.of(16_000, 0.001), KeyType.INTEGER), Duration.ofMinutes(1));
        assertThat(FilterResize.chain(store, "resize-other-fpp", "user", from)).isEmpty();

        store.setIfAbsent(FilterResize.key("resize-other-type", "user", from),
                FilterGenerations.descriptor(FilterGeometry.of(16_000, 0.01), KeyType.TEXT), Duration.ofMinutes(1));
        assertThat(FilterResize.adopted(store, "resize-other-type", "user", from)).isEqualTo(from);
    }
}
