package dev.bloomguard.core.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.LongStream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.RedisBloomFilter;
import dev.bloomguard.core.hash.KeyType;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.LettuceBitmapStore;
import dev.bloomguard.core.redis.LettuceClients;
import dev.bloomguard.embedded.RedisServer;

/**
 * The growth rule of auto-resize, its decisions in a real redis-server (the first one stands),
 * and two instances' generations moving to a grown one, each heartbeat called by hand.
 */
class FilterResizeTest {

    private static final Duration HEARTBEAT = Duration.ofMillis(100);
    private static final Duration GRACE = Duration.ofSeconds(2);
    private static final Duration RETENTION = Duration.ofMillis(300);

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

    /**
     * Redis loses the decision (an eviction, a failover) while both instances answer from the
     * grown generation. The one that heartbeats first finds no decision; the other still answers
     * from the grown generation until its own next heartbeat, so the first keeps adding to it for
     * the grace period; after that both are back on the configured generation, which lacks nothing.
     */
    @Test
    void aGrownGenerationWhoseDecisionIsLostIsStillWrittenToWhileAnotherInstanceMayAnswerFromIt() throws Exception {
        List<RedisBloomFilter> toLoad = new CopyOnWriteArrayList<>();
        RedisBloomFilter a = resizing("lost-decision", "instance-a", toLoad);
        RedisBloomFilter b = resizing("lost-decision", "instance-b", toLoad);
        heartbeat(a, b);
        a.load(LongStream.rangeClosed(1, 600).boxed()); // three times its 200: decides a resize
        heartbeat(a, b); // both learn of it and write to the grown generation
        assertThat(toLoad).as("not loaded before every instance wrote to it for the journal's retention").isEmpty();
        Thread.sleep(RETENTION.toMillis() + 100);
        heartbeat(a, b);
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (toLoad.isEmpty()) {
            assertThat(System.nanoTime()).as("asked to load the grown generation").isLessThan(deadline);
            Thread.sleep(10);
        }
        RedisBloomFilter grown = toLoad.get(0);
        assertThat(grown.geometry().expectedInsertions()).isEqualTo(1_600);
        a.add(700L); // added to both generations before the grown one is loaded
        grown.load(LongStream.rangeClosed(1, 600).boxed());
        heartbeat(a, b);
        assertThat(b.status().resizedFrom()).map(FilterGeometry::expectedInsertions).contains(200L);
        assertThat(b.status().geometry().expectedInsertions()).isEqualTo(1_600);
        assertThat(b.checkAll(LongStream.rangeClosed(1, 600).boxed().toList())).containsOnly(Membership.PRESENT);
        assertThat(b.check(700L)).isEqualTo(Membership.PRESENT);

        store.delete(FilterResize.key("lost-decision", "user", FilterGenerations.descriptor(a)));
        a.generations().orElseThrow().heartbeat(); // finds no decision; b has not heartbeated since
        a.add(1_000_001L);
        assertThat(b.check(1_000_001L)).as("b still answers from the grown generation").isEqualTo(Membership.PRESENT);

        Thread.sleep(GRACE.toMillis() + 100);
        heartbeat(a, b);
        assertThat(b.status().resizedFrom()).as("back on the configured generation").isEmpty();
        a.add(1_000_003L);
        assertThat(b.checkAll(List.of(1L, 600L, 700L, 1_000_001L, 1_000_003L))).containsOnly(Membership.PRESENT);
    }

    private static RedisBloomFilter resizing(String prefix, String instance, List<RedisBloomFilter> toLoad) {
        return RedisBloomFilter.builder("user", FilterGeometry.of(200, 0.01), store).keyPrefix(prefix)
                .instanceId(instance).keyType(KeyType.INTEGER).checkTimeout(Duration.ofSeconds(5))
                .journalRetention(RETENTION).rollout(HEARTBEAT, GRACE).autoResize(UNBOUNDED)
                .onResizedToLoad(toLoad::add).build();
    }

    private static void heartbeat(RedisBloomFilter... filters) {
        for (RedisBloomFilter filter : filters) {
            filter.generations().orElseThrow().heartbeat();
        }
    }
}
