package dev.bloomguard.core.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.GrownGeneration;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.hash.KeyType;
import dev.bloomguard.core.redis.RealRedis;
import dev.bloomguard.testsupport.Await;

/**
 * The growth rule of auto-resize, its decisions in a real redis-server (the first one stands),
 * and two instances' generations moving to a grown one, each heartbeat called by hand.
 */
class FilterResizeTests {

    private static final Duration HEARTBEAT = Duration.ofMillis(100);
    private static final Duration GRACE = Duration.ofSeconds(2);
    private static final Duration RETENTION = Duration.ofMillis(300);

    private static final FilterResize.Policy UNBOUNDED = new FilterResize.Policy(Long.MAX_VALUE, FilterGeometry.MAX_BITS);

    @RegisterExtension
    static final RealRedis REDIS = new RealRedis();

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
        String from = GenerationDescriptor.of(FilterGeometry.of(2_000, 0.01), KeyType.INTEGER);
        String first = GenerationDescriptor.of(FilterGeometry.of(16_000, 0.01), KeyType.INTEGER);
        String second = GenerationDescriptor.of(FilterGeometry.of(32_000, 0.01), KeyType.INTEGER);
        String later = GenerationDescriptor.of(FilterGeometry.of(64_000, 0.01), KeyType.INTEGER);

        assertThat(FilterResize.decide(REDIS.store(), "resize-test", "user", from, first)).isEqualTo(first);
        assertThat(FilterResize.decide(REDIS.store(), "resize-test", "user", from, second))
                .as("another instance's count decides nothing once a decision is there").isEqualTo(first);
        assertThat(FilterResize.adopted(REDIS.store(), "resize-test", "user", from)).isEqualTo(first);

        assertThat(FilterResize.decide(REDIS.store(), "resize-test", "user", first, later)).isEqualTo(later);
        assertThat(FilterResize.chain(REDIS.store(), "resize-test", "user", from)).containsExactly(first, later);
        assertThat(FilterResize.adopted(REDIS.store(), "resize-test", "user", later)).isEqualTo(later);
    }

    @Test
    void aDecisionThatDoesNotGrowUnderTheSameFppAndKeyTypeIsNotFollowed() {
        String from = GenerationDescriptor.of(FilterGeometry.of(2_000, 0.01), KeyType.INTEGER);
        REDIS.store().setIfAbsent(FilterResize.key("resize-odd", "user", from),
                GenerationDescriptor.of(FilterGeometry.of(1_000, 0.01), KeyType.INTEGER), Duration.ofMinutes(1));
        assertThat(FilterResize.chain(REDIS.store(), "resize-odd", "user", from)).isEmpty();

        REDIS.store().setIfAbsent(FilterResize.key("resize-other-fpp", "user", from),
                GenerationDescriptor.of(FilterGeometry.of(16_000, 0.001), KeyType.INTEGER), Duration.ofMinutes(1));
        assertThat(FilterResize.chain(REDIS.store(), "resize-other-fpp", "user", from)).isEmpty();

        REDIS.store().setIfAbsent(FilterResize.key("resize-other-type", "user", from),
                GenerationDescriptor.of(FilterGeometry.of(16_000, 0.01), KeyType.TEXT), Duration.ofMinutes(1));
        assertThat(FilterResize.adopted(REDIS.store(), "resize-other-type", "user", from)).isEqualTo(from);
    }

    /**
     * Redis loses the decision (an eviction, a failover) while both instances answer from the
     * grown generation. The one that heartbeats first finds no decision; the other still answers
     * from the grown generation until its own next heartbeat, so the first keeps adding to it for
     * the grace period; after that both are back on the configured generation, which lacks nothing.
     */
    @Test
    void aGrownGenerationWhoseDecisionIsLostIsStillWrittenToWhileAnotherInstanceMayAnswerFromIt() throws Exception {
        List<GrownGeneration> toLoad = new CopyOnWriteArrayList<>();
        RedisBloomFilter a = resizing("lost-decision", "instance-a", toLoad);
        RedisBloomFilter b = resizing("lost-decision", "instance-b", toLoad);
        heartbeat(a, b);
        a.load(LongStream.rangeClosed(1, 600).boxed()); // three times its 200: decides a resize
        heartbeat(a, b); // both learn of it and write to the grown generation
        assertThat(toLoad).as("not loaded before every instance wrote to it for the journal's retention").isEmpty();
        Thread.sleep(RETENTION.toMillis() + 100);
        heartbeat(a, b);
        Await.until("asked to load the grown generation", Duration.ofSeconds(5), () -> !toLoad.isEmpty());
        GrownGeneration grown = toLoad.get(0);
        assertThat(grown.geometry().expectedInsertions()).isEqualTo(1_600);
        assertThat(grown.filter()).as("a part of one of the filters that grew").isIn(a, b);
        a.add(700L); // added to both generations before the grown one is loaded
        load(grown, LongStream.rangeClosed(1, 600).boxed());
        heartbeat(a, b);
        assertThat(b.status().resizedFrom()).map(FilterGeometry::expectedInsertions).contains(200L);
        assertThat(b.status().geometry().expectedInsertions()).isEqualTo(1_600);
        assertThat(b.checkAll(LongStream.rangeClosed(1, 600).boxed().toList())).containsOnly(Membership.PRESENT);
        assertThat(b.check(700L)).isEqualTo(Membership.PRESENT);

        REDIS.store().delete(FilterResize.key("lost-decision", "user", descriptor(a)));
        a.generations().orElseThrow().heartbeat(); // finds no decision; b has not heartbeated since
        a.add(1_000_001L);
        assertThat(b.check(1_000_001L)).as("b still answers from the grown generation").isEqualTo(Membership.PRESENT);

        Thread.sleep(GRACE.toMillis() + 100);
        heartbeat(a, b);
        assertThat(b.status().resizedFrom()).as("back on the configured generation").isEmpty();
        a.add(1_000_003L);
        assertThat(b.checkAll(List.of(1L, 600L, 700L, 1_000_001L, 1_000_003L))).containsOnly(Membership.PRESENT);
        assertThat(b.checkAll(LongStream.rangeClosed(2_000_000, 2_000_999).boxed().toList()))
                .as("absent keys are blocked by the configured generation, over capacity as it is (about 56 %)")
                .filteredOn(Membership.ABSENT::equals).hasSizeGreaterThan(400);
    }

    /**
     * An instance of a release before auto-resize joins (a rollback, a canary) after the grown
     * generation answers. It knows only the registry and writes to every generation heartbeated
     * there: the grown one must be among them, or the users it creates are blocked by the
     * instances answering from the grown generation, while it runs and after it leaves.
     */
    @Test
    void anInstanceOfAReleaseBeforeAutoResizeWritesToTheGrownGenerationThatAnswers() throws Exception {
        List<GrownGeneration> toLoad = new CopyOnWriteArrayList<>();
        RedisBloomFilter a = resizing("earlier-release", "instance-a", toLoad);
        GrownGeneration grown = grownAndAnswering(a, toLoad);

        RedisBloomFilter configured = RedisBloomFilter.builder("user", FilterGeometry.of(200, 0.01), REDIS.store())
                .keyPrefix("earlier-release").keyType(KeyType.INTEGER).checkTimeout(Duration.ofSeconds(5)).build();
        try (EarlierReleaseInstance earlier = new EarlierReleaseInstance(REDIS.store(), "earlier-release", configured,
                "instance-earlier", GRACE)) {
            earlier.heartbeat();
            earlier.add(5_000L);
            assertThat(a.check(5_000L)).as("added by the earlier release while it runs").isEqualTo(Membership.PRESENT);
            assertThat(earlier.othersWritten()).as("the grown generation is in the registry").contains(grown.keys().live());
            earlier.heartbeat(); // says it writes to the grown generation (from its start)
            heartbeat(a);
            earlier.add(5_001L);
            assertThat(a.status().geometry().expectedInsertions()).as("the grown generation still answers")
                    .isEqualTo(1_600);
            assertThat(a.checkAll(List.of(5_000L, 5_001L))).containsOnly(Membership.PRESENT);
        }
        heartbeat(a);
        assertThat(a.status().geometry().expectedInsertions()).isEqualTo(1_600);
        assertThat(a.checkAll(List.of(1L, 600L, 5_000L, 5_001L))).as("after it left").containsOnly(Membership.PRESENT);
        assertThat(a.checkAll(LongStream.rangeClosed(1_000_000, 1_000_999).boxed().toList()))
                .as("most absent keys are blocked by the grown generation").filteredOn(Membership.ABSENT::equals)
                .hasSizeGreaterThan(950);
    }

    /**
     * A rollback to a release before auto-resize, and forward again once the grown generation had
     * gone unwritten for the grace period (the earlier release stops writing to a generation no
     * instance heartbeats, without saying so, and deletes it a heartbeat later). The returning
     * instance finds the decision and the grown generation, whose metadata says it covered every
     * writer, but it lacks the users created meanwhile: it does not answer from it until it is
     * loaded again. The returning instance runs the configured generation and follows the
     * decision, or (as the starter starts it) runs the grown generation as its own.
     */
    @ParameterizedTest(name = "returning on the grown generation as its own: {0}")
    @ValueSource(booleans = { false, true })
    void aRollbackToAReleaseBeforeAutoResizeAndForwardAgainBlocksNothingCreatedMeanwhile(boolean adopted)
            throws Exception {
        String prefix = "roll-back-and-forth-" + adopted;
        List<GrownGeneration> toLoad = new CopyOnWriteArrayList<>();
        RedisBloomFilter a = resizing(prefix, "instance-a", toLoad);
        grownAndAnswering(a, toLoad);
        RedisBloomFilter configured = RedisBloomFilter.builder("user", FilterGeometry.of(200, 0.01), REDIS.store())
                .keyPrefix(prefix).keyType(KeyType.INTEGER).checkTimeout(Duration.ofSeconds(5)).build();
        try (EarlierReleaseInstance earlier = new EarlierReleaseInstance(REDIS.store(), prefix, configured,
                "instance-earlier", GRACE)) {
            earlier.heartbeat();
            a.generations().orElseThrow().close(); // the rollback: the last instance of this release leaves
            earlier.add(8_000L);
            Thread.sleep(GRACE.toMillis() + 50);
            earlier.heartbeat(); // writes to the configured generation alone
            earlier.add(8_001L);

            List<GrownGeneration> returningLoads = new CopyOnWriteArrayList<>();
            notReady.clear();
            String grown = FilterResize.adopted(REDIS.store(), prefix, "user", descriptor(a));
            RedisBloomFilter returning = adopted
                    ? resizing(prefix, "instance-returning", returningLoads, GenerationDescriptor.geometry(grown))
                    : resizing(prefix, "instance-returning", returningLoads);
            heartbeat(returning);
            assertThat(returning.checkAll(List.of(1L, 8_000L, 8_001L))).as("created during the rollback")
                    .doesNotContain(Membership.ABSENT);

            earlier.heartbeat(); // writes to the grown generation again
            Thread.sleep(RETENTION.toMillis() + 100);
            earlier.heartbeat();
            heartbeat(returning);
            Stream<Long> source = Stream.concat(LongStream.rangeClosed(1, 600).boxed(), Stream.of(8_000L, 8_001L));
            if (adopted) {
                Await.until("asked to load its own generation again", Duration.ofSeconds(5), () -> notReady.contains(returning));
                returning.load(source);
            }
            else {
                Await.until("asked to load the grown generation again", Duration.ofSeconds(5), () -> !returningLoads.isEmpty());
                load(returningLoads.get(0), source);
            }
            heartbeat(returning);
            earlier.add(8_002L);
            assertThat(returning.status().geometry().expectedInsertions()).isEqualTo(1_600);
            assertThat(returning.checkAll(List.of(1L, 600L, 8_000L, 8_001L, 8_002L))).containsOnly(Membership.PRESENT);
            assertThat(returning.checkAll(LongStream.rangeClosed(1_000_000, 1_000_999).boxed().toList()))
                    .filteredOn(Membership.ABSENT::equals).hasSizeGreaterThan(950);
        }
    }

    /**
     * The configured generation is rebuilt while the grown one answers (a rebuild interval, an
     * operator), by an instance whose clock is an hour behind, and the rebuild finds a row created
     * behind the guard's back, which the grown generation lacks. Which load read the source later
     * is Redis's to say, not the loaders' clocks: the grown generation answers again only once it
     * is loaded again.
     */
    @Test
    void aRebuildByALoaderWhoseClockIsBehindStillHasTheGrownGenerationLoadedAgainBeforeItAnswers() throws Exception {
        List<GrownGeneration> toLoad = new CopyOnWriteArrayList<>();
        RedisBloomFilter a = resizing("skewed-clock", "instance-a", toLoad);
        grownAndAnswering(a, toLoad);
        toLoad.clear();

        a.load(Stream.concat(LongStream.rangeClosed(1, 600).boxed(), Stream.of(7_000L)));
        REDIS.store().hashIncrement(a.keys().meta(), "loadedAt", -3_600_000); // its loader's clock is an hour behind
        heartbeat(a);
        assertThat(a.check(7_000L)).as("found by the rebuild of the configured generation").isEqualTo(Membership.PRESENT);

        Await.until("asked to load the grown generation again", Duration.ofSeconds(5), () -> !toLoad.isEmpty());
        load(toLoad.get(0), Stream.concat(LongStream.rangeClosed(1, 600).boxed(), Stream.of(7_000L)));
        heartbeat(a);
        assertThat(a.status().geometry().expectedInsertions()).as("the grown generation answers again").isEqualTo(1_600);
        assertThat(a.checkAll(List.of(1L, 600L, 7_000L))).containsOnly(Membership.PRESENT);
        assertThat(a.checkAll(LongStream.rangeClosed(1_000_000, 1_000_999).boxed().toList()))
                .filteredOn(Membership.ABSENT::equals).hasSizeGreaterThan(950);
    }

    /** Loads {@code a} over capacity and waits until the generation it grows into is loaded and answers. */
    private static GrownGeneration grownAndAnswering(RedisBloomFilter a, List<GrownGeneration> toLoad)
            throws InterruptedException {
        heartbeat(a);
        a.load(LongStream.rangeClosed(1, 600).boxed()); // three times its 200: decides a resize
        heartbeat(a);
        Thread.sleep(RETENTION.toMillis() + 100);
        heartbeat(a);
        Await.until("asked to load the grown generation", Duration.ofSeconds(5), () -> !toLoad.isEmpty());
        GrownGeneration grown = toLoad.get(0);
        load(grown, LongStream.rangeClosed(1, 600).boxed());
        heartbeat(a);
        assertThat(a.status().geometry().expectedInsertions()).as("the grown generation answers").isEqualTo(1_600);
        return grown;
    }

    /** The filters whose not-ready path was taken (a starter's warmer would load them). */
    private static final List<RedisBloomFilter> notReady = new CopyOnWriteArrayList<>();

    /** Loads a grown generation as a starter's warmer would, without its lock (one loader here). */
    private static void load(GrownGeneration grown, Stream<?> keys) {
        try (RedisBloomFilter.PendingLoad pending = grown.beginLoad()) {
            pending.load(keys.iterator(), null, null, false);
        }
    }

    private static String descriptor(RedisBloomFilter filter) {
        return GenerationDescriptor.of(filter.geometry(), filter.keyType().orElse(null), filter.hash().id());
    }

    private static RedisBloomFilter resizing(String prefix, String instance, List<GrownGeneration> toLoad) {
        return resizing(prefix, instance, toLoad, FilterGeometry.of(200, 0.01));
    }

    private static RedisBloomFilter resizing(String prefix, String instance, List<GrownGeneration> toLoad,
            FilterGeometry geometry) {
        return RedisBloomFilter.builder("user", geometry, REDIS.store()).keyPrefix(prefix)
                .instanceId(instance).keyType(KeyType.INTEGER).checkTimeout(Duration.ofSeconds(5))
                .journalRetention(RETENTION).rollout(HEARTBEAT, GRACE).autoResize(UNBOUNDED).onNotReady(notReady::add)
                .onResizedToLoad(toLoad::add).build();
    }

    private static void heartbeat(RedisBloomFilter... filters) {
        for (RedisBloomFilter filter : filters) {
            filter.generations().orElseThrow().heartbeat();
        }
    }
}
