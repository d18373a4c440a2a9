package dev.bloomguard.core.misses;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.stream.LongStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.hash.BitPositions;
import dev.bloomguard.core.hash.KeyHash;
import dev.bloomguard.core.hash.KeyType;
import dev.bloomguard.core.redis.RealRedis;
import dev.bloomguard.testsupport.Await;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * Remembered misses against a real {@code redis-server}, with two filter objects of one name
 * standing for two instances. What matters most: nothing one instance remembers may reject a
 * key once any instance's add of it has returned, whatever the other instance's memory holds.
 */
class RememberedMissesTests {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final FilterGeometry GEOMETRY = FilterGeometry.of(10_000, 0.01);
    /** The lookup (guarded method) that found nothing. */
    private static final String LOOKUP = "Users#find";

    @RegisterExtension
    static final RealRedis REDIS = new RealRedis();

    private RedisBloomFilter one;
    private RedisBloomFilter two;

    @BeforeEach
    void twoInstances() {
        one = instance(new RememberedMisses.Settings(Duration.ofMinutes(1), 1_000, true), null);
        two = instance(new RememberedMisses.Settings(Duration.ofMinutes(1), 1_000, true), null);
        one.load(LongStream.rangeClosed(1, 5_000).boxed());
        // Both listen before anything is remembered: an event sent before a subscription is never heard.
        try (RedisClient admin = RedisClient.create("redis://127.0.0.1:" + REDIS.port());
                StatefulRedisConnection<String, String> connection = admin.connect()) {
            String channel = one.keys().events();
            eventually(() -> connection.sync().pubsubNumsub(channel).getOrDefault(channel, 0L) == 2);
        }
    }

    @AfterEach
    void close() {
        one.close();
        two.close();
    }

    /** An instance of filter {@code <name>-rolled} during a rolling change, with {@code geometry} its own. */
    private RedisBloomFilter rollingInstance(String instanceId, FilterGeometry geometry) {
        Duration heartbeat = Duration.ofSeconds(10);
        return RedisBloomFilter.builder(REDIS.filterName() + "-rolled", geometry, REDIS.store()).checkTimeout(TIMEOUT)
                .rememberMisses(new RememberedMisses.Settings(Duration.ofMinutes(1), 1_000, false))
                .rollout(heartbeat, heartbeat.multipliedBy(4)).instanceId(instanceId).build();
    }

    private RedisBloomFilter instance(RememberedMisses.Settings settings, KeyType keyType) {
        return instance(settings, keyType, REDIS.filterName());
    }

    private static RedisBloomFilter instance(RememberedMisses.Settings settings, KeyType keyType, String filter) {
        return RedisBloomFilter.builder(filter, GEOMETRY, REDIS.store()).checkTimeout(TIMEOUT).keyType(keyType)
                .rememberMisses(settings).build();
    }

    @Test
    void aMissRememberedOnOneInstanceIsConfirmedOnTheOtherAndAnAddOnEitherForgetsItBeforeItReturns() {
        // 4242 is in the filter (loaded) but, say, deleted from the database since: it passes.
        assertThat(one.check(4242L)).isEqualTo(Membership.PRESENT);
        assertThat(one.isRememberedMissAsync(4242L, LOOKUP).join()).isFalse();

        assertThat(one.rememberMissAsync(4242L, LOOKUP, System.nanoTime()).join()).isTrue();
        assertThat(one.isRememberedMissAsync(4242L, LOOKUP).join()).isTrue();
        eventually(() -> two.isRememberedMissAsync(4242L, LOOKUP).join());
        assertThat(two.isRememberedMissAsync(4243L, LOOKUP).join()).as("another key").isFalse();

        // The row comes back through the other instance: once its add returns, neither rejects it,
        // although instance one's memory still points at the key (no pub/sub has to arrive first).
        two.add(4242L);
        assertThat(one.isRememberedMissAsync(4242L, LOOKUP).join()).isFalse();
        assertThat(two.isRememberedMissAsync(4242L, LOOKUP).join()).isFalse();
    }

    @Test
    void anAddForgetsTheMissEvenWhenTheOtherInstanceWasNeverTold() {
        RedisBloomFilter silent = instance(new RememberedMisses.Settings(Duration.ofMinutes(1), 1_000, false), null);
        try {
            assertThat(silent.rememberMissAsync(17L, LOOKUP, System.nanoTime()).join()).isTrue();
            assertThat(silent.isRememberedMissAsync(17L, LOOKUP).join()).isTrue();

            one.addAllAsync(List.of(17L, 18L)).join();

            assertThat(silent.isRememberedMissAsync(17L, LOOKUP).join()).isFalse();
        }
        finally {
            silent.close();
        }
    }

    @Test
    void anInstanceThatDoesNotRememberMissesStillForgetsThemOnItsAdds() {
        // A rolling change that turns negative-cache on, or a writer built with guard-core alone.
        RedisBloomFilter without = REDIS.filter(GEOMETRY).build();
        assertThat(one.rememberMissAsync(4_400L, LOOKUP, System.nanoTime()).join()).isTrue();
        assertThat(one.rememberMissAsync(4_401L, LOOKUP, System.nanoTime()).join()).isTrue();

        without.add(4_400L);
        without.addAllAsync(List.of(4_401L)).join();

        assertThat(one.isRememberedMissAsync(4_400L, LOOKUP).join()).isFalse();
        assertThat(one.isRememberedMissAsync(4_401L, LOOKUP).join()).isFalse();
    }

    @Test
    void anAddByAnInstanceThatDoesNotRememberMissesStillRefusesARememberRacingWithIt() {
        RedisBloomFilter without = REDIS.filter(GEOMETRY).build();
        // A rolling change that turns negative-cache on: the new instances already remember misses.
        assertThat(one.rememberMissAsync(9_099L, LOOKUP, System.nanoTime()).join()).isTrue();
        long checkStarted = System.nanoTime(); // the lookup read the database before the commit

        without.add(9_100L);

        assertThat(one.rememberMissAsync(9_100L, LOOKUP, checkStarted).join()).isFalse();
        assertThat(one.isRememberedMissAsync(9_100L, LOOKUP).join()).isFalse();
    }

    @Test
    void anAddMadeWhileNobodyRememberedMissesRefusesTheFirstRememberRacingWithIt() {
        // A writer without negative-cache (a rolling change that turns it on, a service that only
        // writes) adds while no instance has remembered a miss of the filter lately, so its add
        // leaves no mark; the lookup of the instance that remembers read the database before the commit.
        RedisBloomFilter without = REDIS.filter(GEOMETRY).build();
        long checkStarted = System.nanoTime();

        without.add(9_200L);

        assertThat(one.rememberMissAsync(9_200L, LOOKUP, checkStarted).join()).isFalse();
        assertThat(one.isRememberedMissAsync(9_200L, LOOKUP).join()).isFalse();
        assertThat(two.rememberMissAsync(9_200L, LOOKUP, System.nanoTime()).join()).as("from the other instance")
                .isFalse();
        // The same first remember, where no unmarked add came before it, is remembered and rejects.
        RedisBloomFilter quiet = instance(new RememberedMisses.Settings(Duration.ofMinutes(1), 1_000, false), null,
                REDIS.filterName() + "-quiet");
        try {
            quiet.load(LongStream.rangeClosed(1, 5_000).boxed());
            assertThat(quiet.rememberMissAsync(9_200L, LOOKUP, System.nanoTime()).join()).isTrue();
            assertThat(quiet.isRememberedMissAsync(9_200L, LOOKUP).join()).isTrue();
        }
        finally {
            quiet.close();
        }
    }

    @Test
    void anAddThatLeftNoMarkStillRefusesRemembersAfterAReload() throws InterruptedException {
        RedisBloomFilter without = REDIS.filter(GEOMETRY).build();
        long checkStarted = System.nanoTime();
        without.add(9_300L);
        Thread.sleep(5); // loadedAt is in milliseconds

        // A rebuild swaps in between the add and the remember; it rewrites the filter's metadata.
        two.load(LongStream.rangeClosed(1, 5_000).boxed());

        assertThat(one.rememberMissAsync(9_300L, LOOKUP, checkStarted).join()).isFalse();
        assertThat(one.isRememberedMissAsync(9_300L, LOOKUP).join()).isFalse();
    }

    @Test
    void forgettingAfterACommitReachesTheMissesOfTheOtherGenerationDuringARollingChange() {
        RedisBloomFilter older = rollingInstance("older", GEOMETRY);
        RedisBloomFilter newer = rollingInstance("newer", FilterGeometry.of(20_000, 0.01));
        try {
            older.generations().orElseThrow().heartbeat();
            newer.generations().orElseThrow().heartbeat();
            older.load(LongStream.rangeClosed(1, 5_000).boxed());
            assertThat(older.rememberMissAsync(4_600L, LOOKUP, System.nanoTime()).join()).isTrue();

            newer.forgetMissesAsync(List.of(4_600L)).join();

            assertThat(older.isRememberedMissAsync(4_600L, LOOKUP).join()).isFalse();
        }
        finally {
            older.close();
            newer.close();
        }
    }

    @Test
    void aNewGenerationThatDoesNotAnswerYetRemembersNothingThatAWriterOfTheOldOneCouldNotForget() {
        RedisBloomFilter older = rollingInstance("older", GEOMETRY);
        RedisBloomFilter newer = rollingInstance("newer", FilterGeometry.of(20_000, 0.01));
        try {
            // The older instance heartbeats before the newer one starts: it does not know the new generation yet.
            older.generations().orElseThrow().heartbeat();
            newer.generations().orElseThrow().heartbeat();
            older.load(LongStream.rangeClosed(1, 5_000).boxed());
            newer.load(LongStream.rangeClosed(1, 5_000).boxed());
            newer.generations().orElseThrow().heartbeat(); // sees the older generation loaded, its own not covering
            long checkStarted = System.nanoTime();
            // A row the older instance writes in a transaction: added (to its generation only)...
            older.add(9_400L);
            assertThat(newer.check(9_400L)).as("answered by the older generation").isEqualTo(Membership.PRESENT);
            // ...not visible to the newer instance's lookup until the commit, whose forget reaches the older generation only.
            newer.rememberMissAsync(9_400L, LOOKUP, checkStarted).join();
            older.forgetMissesAsync(List.of(9_400L)).join();

            assertThat(newer.isRememberedMissAsync(9_400L, LOOKUP).join()).isFalse();
            // Where the own generation answers, the same lookup is remembered and rejects.
            assertThat(older.rememberMissAsync(9_401L, LOOKUP, System.nanoTime()).join()).isTrue();
            assertThat(older.isRememberedMissAsync(9_401L, LOOKUP).join()).isTrue();
        }
        finally {
            older.close();
            newer.close();
        }
    }

    /**
     * A Redis that restarts from an AOF cut, or fails over to a replica, keeps a prefix of what it
     * was told: an add that deletes the key's miss before it counts the add cannot come back
     * counted (so not noticed by the rewind check) with its miss still there, rejecting the key.
     */
    @Test
    void anAddDeletesTheKeysMissBeforeItCountsTheAdd() {
        RedisBloomFilter without = REDIS.filter(GEOMETRY).build();
        for (RedisBloomFilter writer : List.of(two, without)) {
            long key = writer == two ? 4_800L : 4_801L;
            assertThat(one.rememberMissAsync(key, LOOKUP, System.nanoTime()).join()).isTrue();
            String missKey = one.rememberedMisses().orElseThrow().missKey(key);

            List<List<String>> commands = commandsRunDuring(() -> writer.add(key));

            int forget = indexOf(commands, command -> command.contains(missKey));
            int count = indexOf(commands, command -> command.get(0).equalsIgnoreCase("HINCRBY"));
            assertThat(forget).as("the miss deleted, in %s", commands).isNotNegative();
            assertThat(count).as("the add counted").isGreaterThan(forget);
            assertThat(one.isRememberedMissAsync(key, LOOKUP).join()).isFalse();
        }
    }

    /** Each command Redis ran during {@code action}, oldest first, as its arguments. */
    private static List<List<String>> commandsRunDuring(Runnable action) {
        try (RedisClient admin = RedisClient.create("redis://127.0.0.1:" + REDIS.port());
                StatefulRedisConnection<String, String> connection = admin.connect()) {
            connection.sync().configSet("slowlog-max-len", "1000");
            connection.sync().configSet("slowlog-log-slower-than", "0");
            connection.sync().slowlogReset();
            List<Object> entries;
            try {
                action.run();
                entries = connection.sync().slowlogGet(1000);
            }
            finally {
                connection.sync().configSet("slowlog-log-slower-than", "10000");
            }
            List<List<String>> commands = new ArrayList<>();
            for (Object entry : entries) {
                commands.add(0, ((List<?>) ((List<?>) entry).get(3)).stream().map(String::valueOf).toList());
            }
            return commands;
        }
    }

    private static int indexOf(List<List<String>> commands, Predicate<List<String>> which) {
        for (int i = 0; i < commands.size(); i++) {
            if (which.test(commands.get(i))) {
                return i;
            }
        }
        return -1;
    }

    /**
     * On a Redis Cluster, the node that holds shard 0 fails over to a replica that never got the
     * add's forget, while the add's bits and count live on the key's own shard's node. The miss
     * must not come back: an instance whose index still points at it would reject a key that
     * exists. Played on one server by putting back shard 0's slot as it was before the add.
     */
    @Test
    void aFailoverOfTheNodeHoldingShardZeroBringsBackNoMissThatAnAddForgot() {
        FilterGeometry sharded = FilterGeometry.withShards(40_000, 0.01, 4);
        RememberedMisses.Settings unshared = new RememberedMisses.Settings(Duration.ofMinutes(1), 1_000, false);
        String name = REDIS.filterName() + "-sharded";
        RedisBloomFilter writer = RedisBloomFilter.builder(name, sharded, REDIS.store()).checkTimeout(TIMEOUT)
                .rememberMisses(unshared).build();
        RedisBloomFilter reader = RedisBloomFilter.builder(name, sharded, REDIS.store()).checkTimeout(TIMEOUT)
                .rememberMisses(unshared).build();
        try (RedisClient admin = RedisClient.create("redis://127.0.0.1:" + REDIS.port());
                StatefulRedisConnection<byte[], byte[]> raw = admin.connect(ByteArrayCodec.INSTANCE)) {
            writer.load(LongStream.rangeClosed(1, 20_000).boxed());
            long key = LongStream.iterate(30_001, id -> id + 1).filter(id -> shardOf(sharded, id) != 0).findFirst()
                    .orElseThrow();
            assertThat(reader.rememberMissAsync(key, LOOKUP, System.nanoTime()).join()).isTrue();
            Map<byte[], byte[]> shardZero = dump(raw.sync(), writer.keys().live(0));

            writer.add(key);
            restore(raw.sync(), writer.keys().live(0), shardZero); // failed over to the replica behind

            assertThat(reader.check(key)).isEqualTo(Membership.PRESENT);
            assertThat(reader.isRememberedMissAsync(key, LOOKUP).join()).as("the miss the add forgot").isFalse();
            long other = LongStream.iterate(key + 1, id -> id + 1).filter(id -> shardOf(sharded, id) != 0).findFirst()
                    .orElseThrow();
            assertThat(reader.rememberMissAsync(other, LOOKUP, System.nanoTime()).join()).isTrue();
            assertThat(reader.isRememberedMissAsync(other, LOOKUP).join()).as("a miss nobody forgot").isTrue();
            long blocked = LongStream.range(1_000_000, 1_001_000).filter(id -> reader.check(id) == Membership.ABSENT)
                    .count();
            assertThat(blocked).as("absent ids of 1,000 blocked").isGreaterThan(950);
        }
        finally {
            writer.close();
            reader.close();
        }
    }

    private static int shardOf(FilterGeometry geometry, long key) {
        return BitPositions.fillSharded(KeyHash.murmur3(), key, geometry.bits(), geometry.hashes(), geometry.shards(),
                new long[geometry.hashes()], 0);
    }

    /** Every key of the slot whose names begin with {@code slotKey}, as DUMP gives it. */
    private static Map<byte[], byte[]> dump(RedisCommands<byte[], byte[]> redis, String slotKey) {
        Map<byte[], byte[]> dumped = new LinkedHashMap<>();
        for (byte[] name : redis.keys((slotKey + "*").getBytes(StandardCharsets.UTF_8))) {
            dumped.put(name, redis.dump(name));
        }
        return dumped;
    }

    /** Puts the slot back as {@link #dump} found it: keys made since are gone, the others as they were. */
    private static void restore(RedisCommands<byte[], byte[]> redis, String slotKey, Map<byte[], byte[]> dumped) {
        for (byte[] name : redis.keys((slotKey + "*").getBytes(StandardCharsets.UTF_8))) {
            redis.del(name);
        }
        dumped.forEach((name, value) -> redis.restore(name, 0, value));
    }

    @Test
    void aRememberThatCouldNotBeSentInTimeIsNotSent() {
        long checkStarted = System.nanoTime();
        RememberedMisses misses = one.rememberedMisses().orElseThrow();

        String missKey = misses.missKey(4_500L);
        assertThat(REDIS.store().rememberMissAsync(missKey, LOOKUP, missKey + ":unused-mark", one.keys().meta(),
                Duration.ofMinutes(1), checkStarted - 1).join()).isFalse();
        assertThat(REDIS.store().hashGetAll(missKey)).as("nothing written").isEmpty();

        assertThat(REDIS.store().rememberMissAsync(missKey, LOOKUP, missKey + ":unused-mark", one.keys().meta(),
                Duration.ofMinutes(1), System.nanoTime() + 1_000_000_000L).join()).as("in time").isTrue();
        assertThat(REDIS.store().hashGetAll(missKey)).containsKey(LOOKUP);
    }

    @Test
    void aMissFoundJustAfterAnotherInstanceAddedTheKeyIsNotRemembered() {
        // Instance two's method read the database before instance one committed and added the key;
        // its remember arrives after that add: it must not resurrect the miss.
        long checkStarted = System.nanoTime();
        one.add(9_001L);

        assertThat(two.rememberMissAsync(9_001L, LOOKUP, checkStarted).join()).isFalse();
        assertThat(two.isRememberedMissAsync(9_001L, LOOKUP).join()).isFalse();
        assertThat(two.rememberMissAsync(9_002L, LOOKUP, checkStarted).join()).as("a key nobody added").isTrue();
    }

    @Test
    void aMethodSlowerThanTheAddWindowAllowsIsNotRemembered() {
        long checkStarted = System.nanoTime() - RememberedMisses.MAX_REMEMBER_DELAY.toNanos() - 1;

        assertThat(one.rememberMissAsync(4_000L, LOOKUP, checkStarted).join()).isFalse();
        assertThat(one.isRememberedMissAsync(4_000L, LOOKUP).join()).isFalse();
    }

    @Test
    void aReloadForgetsEveryMissRememberedUnderTheOldLoad() throws InterruptedException {
        assertThat(one.rememberMissAsync(4_100L, LOOKUP, System.nanoTime()).join()).isTrue();
        Thread.sleep(5); // loadedAt is in milliseconds

        two.load(LongStream.rangeClosed(1, 5_000).boxed());

        assertThat(one.isRememberedMissAsync(4_100L, LOOKUP).join()).isFalse();
        assertThat(one.rememberMissAsync(4_100L, LOOKUP, System.nanoTime()).join()).as("remembered anew").isTrue();
        assertThat(one.isRememberedMissAsync(4_100L, LOOKUP).join()).isTrue();
    }

    @Test
    void aFilterWithoutLiveLoadRemembersNothing() {
        RedisBloomFilter unloaded = RedisBloomFilter.builder(REDIS.filterName() + "-unloaded", GEOMETRY, REDIS.store()).checkTimeout(TIMEOUT)
                .rememberMisses(new RememberedMisses.Settings(Duration.ofMinutes(1), 1_000, false)).build();

        assertThat(unloaded.rememberMissAsync(1L, LOOKUP, System.nanoTime()).join()).isFalse();
        assertThat(unloaded.isRememberedMissAsync(1L, LOOKUP).join()).isFalse();
    }

    @Test
    void aMissIsForgottenAfterItsTtl() {
        RedisBloomFilter brief = instance(new RememberedMisses.Settings(Duration.ofMillis(300), 1_000, false), null);
        try {
            assertThat(brief.rememberMissAsync(77L, LOOKUP, System.nanoTime()).join()).isTrue();
            assertThat(brief.isRememberedMissAsync(77L, LOOKUP).join()).isTrue();

            eventually(() -> !brief.isRememberedMissAsync(77L, LOOKUP).join());
        }
        finally {
            brief.close();
        }
    }

    @Test
    void aMissIsRememberedForTheLookupThatFoundNothingOnlyAndAnAddForgetsItForEvery() {
        String orders = "Orders#ofUser";
        assertThat(one.rememberMissAsync(4_300L, orders, System.nanoTime()).join()).isTrue();

        assertThat(one.isRememberedMissAsync(4_300L, orders).join()).isTrue();
        assertThat(one.isRememberedMissAsync(4_300L, LOOKUP).join()).as("the user's own lookup").isFalse();

        assertThat(one.rememberMissAsync(4_300L, LOOKUP, System.nanoTime()).join()).isTrue();
        two.add(4_300L);

        assertThat(one.isRememberedMissAsync(4_300L, orders).join()).isFalse();
        assertThat(one.isRememberedMissAsync(4_300L, LOOKUP).join()).isFalse();
    }

    @Test
    void eachLookupsMissEndsAtItsOwnTimeWhenAnotherLookupRemembersTheKeyLater() throws InterruptedException {
        RedisBloomFilter brief = instance(new RememberedMisses.Settings(Duration.ofSeconds(2), 1_000, false), null);
        try {
            assertThat(brief.rememberMissAsync(88L, "First#lookup", System.nanoTime()).join()).isTrue();
            Thread.sleep(1_200);
            assertThat(brief.rememberMissAsync(88L, "Second#lookup", System.nanoTime()).join()).isTrue();

            eventually(() -> !brief.isRememberedMissAsync(88L, "First#lookup").join());
            assertThat(brief.isRememberedMissAsync(88L, "Second#lookup").join()).as("remembered later, ends later")
                    .isTrue();
        }
        finally {
            brief.close();
        }
    }

    @Test
    void aUuidRememberedInUpperCaseTextIsForgottenByAnAddOfTheUuid() {
        RedisBloomFilter uuids = RedisBloomFilter.builder(REDIS.filterName() + "-uuid", GEOMETRY, REDIS.store()).checkTimeout(TIMEOUT)
                .keyType(KeyType.UUID).rememberMisses(new RememberedMisses.Settings(Duration.ofMinutes(1), 1_000, false))
                .build();
        try {
            UUID id = UUID.randomUUID();
            uuids.load(List.of(id).stream());
            String shouted = id.toString().toUpperCase();
            assertThat(uuids.rememberMissAsync(shouted, LOOKUP, System.nanoTime()).join()).isTrue();
            assertThat(uuids.isRememberedMissAsync(id, LOOKUP).join()).as("the same key, spelled otherwise").isTrue();

            uuids.add(id);

            assertThat(uuids.isRememberedMissAsync(shouted, LOOKUP).join()).isFalse();
        }
        finally {
            uuids.close();
        }
    }

    @Test
    void theRedisEntryNamesNoKeyTextAndSharesTheMetadataSlot() {
        RememberedMisses misses = one.rememberedMisses().orElseThrow();

        String missKey = misses.missKey("alice@example.com");

        assertThat(missKey).startsWith(one.keys().live() + ":miss:").doesNotContain("alice").hasSize(
                (one.keys().live() + ":miss:").length() + 32);
    }

    private static void eventually(BooleanSupplier condition) {
        Await.until("condition met", TIMEOUT, condition);
    }
}
