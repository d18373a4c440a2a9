package dev.bloomguard.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.hash.KeyHash;
import dev.bloomguard.core.redis.RealRedis;

/** Siphash filters against a real redis-server: their secret, their key names and their false-positive rate. */
class KeyedHashingTests {

    private static final Logger log = LoggerFactory.getLogger(KeyedHashingTests.class);
    private static final String SECRET = "5f0e2a71c3b94d8e6a1f7b2c9d3e4f50";

    @RegisterExtension
    static final RealRedis REDIS = new RealRedis();

    /**
     * 1,000,000 keys never added, about 10,000 expected false positives: one standard deviation
     * is 1 %, so 5 % is five of them (and the secret is fixed, so the run is repeatable).
     */
    @Test
    void letsThroughWithinFivePercentOfTheTheoreticalShareOfKeysNeverAdded() {
        RedisBloomFilter filter = filter(FilterGeometry.of(200_000, 0.01), KeyHash.sipHash(SECRET));
        filter.load(LongStream.rangeClosed(1, 200_000).boxed());

        NeverAddedAnswers answers = NeverAddedAnswers.of(filter, 1_000_000);
        double measured = answers.falsePositiveRate();
        double theory = filter.geometry().expectedFpp(200_000);
        log.info("siphash: measured false-positive rate {} over {} keys never added; theory {}", measured, answers.asked(),
                theory);

        assertThat(answers.falsePositives() + answers.absent()).as("every answer decided").isEqualTo(answers.asked());
        assertThat(measured).isBetween(0.95 * theory, 1.05 * theory);
        assertThat(filter.checkAll(LongStream.rangeClosed(1, 1_000).boxed().toList())).containsOnly(Membership.PRESENT);
    }

    /** Every probe path (one check, a batch, an add, a load) hashes alike, over shards chosen by the keyed hash. */
    @Test
    void findsEveryLoadedAndAddedKeyOfAShardedFilterAndBlocksTheRest() {
        RedisBloomFilter filter = filter(FilterGeometry.withShards(20_000, 0.01, 4), KeyHash.sipHash(SECRET));
        filter.load(LongStream.rangeClosed(1, 10_000).boxed());
        filter.addAll(LongStream.rangeClosed(10_001, 12_000).boxed().toList());
        filter.add("carol");

        assertThat(filter.checkAll(LongStream.rangeClosed(1, 12_000).boxed().toList())).containsOnly(Membership.PRESENT);
        for (long id = 1; id <= 12_000; id += 97) {
            assertThat(filter.check(Long.toString(id))).as("id %s", id).isEqualTo(Membership.PRESENT);
        }
        assertThat(filter.check("carol")).isEqualTo(Membership.PRESENT);
        long blocked = LongStream.rangeClosed(100_001, 102_000).filter(id -> filter.check(id) == Membership.ABSENT).count();
        assertThat(blocked).isGreaterThan(1_900);
        assertThat(filter.keys().live(3)).isEqualTo("bg:v1:{" + REDIS.filterName() + ":m" + filter.geometry().bits() + "k7s4:"
                + KeyHash.sipHash(SECRET).id() + ":3}");
    }

    @Test
    void everyInstanceUsesTheSecretTheFirstOneStored() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<KeyHash>> hashes = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                hashes.add(threads.submit(() -> {
                    start.await();
                    return HashSecrets.stored(REDIS.store(), "bg", REDIS.filterName());
                }));
            }
            start.countDown();
            KeyHash first = hashes.get(0).get();
            for (Future<KeyHash> hash : hashes) {
                assertThat(hash.get()).isEqualTo(first);
            }
            assertThat(first.algorithm()).isEqualTo(KeyHash.Algorithm.SIPHASH);
            assertThat(REDIS.client().commands().ttl(bytes(HashSecrets.key("bg", REDIS.filterName())))).as("no expiry").isEqualTo(-1);
        }
        finally {
            threads.shutdownNow();
        }
    }

    /**
     * The day Redis loses the secret (a flush, an eviction): the next instance generates another,
     * whose fingerprint names other keys. That filter has never been loaded, so it blocks nothing
     * until it is; loaded, it blocks absent keys again.
     */
    @Test
    void aLostSecretGivesNewKeysThatBlockNothingUntilLoaded() {
        List<Long> present = LongStream.rangeClosed(1, 5_000).boxed().toList();
        RedisBloomFilter before = filter(FilterGeometry.of(10_000, 0.01), HashSecrets.stored(REDIS.store(), "bg", REDIS.filterName()));
        before.load(present.stream());
        assertThat(before.check(999_999L)).isEqualTo(Membership.ABSENT);

        REDIS.client().commands().del(bytes(HashSecrets.key("bg", REDIS.filterName())));
        RedisBloomFilter after = filter(FilterGeometry.of(10_000, 0.01), HashSecrets.stored(REDIS.store(), "bg", REDIS.filterName()));

        assertThat(after.hash()).isNotEqualTo(before.hash());
        assertThat(after.keys().live()).isNotEqualTo(before.keys().live());
        assertThat(after.checkAll(present)).as("present keys under the new secret, before a load")
                .containsOnly(Membership.NOT_READY);
        assertThat(LongStream.rangeClosed(1_000_001, 1_001_000).mapToObj(after::check))
                .as("absent keys under the new secret, before a load").containsOnly(Membership.NOT_READY);

        after.load(present.stream());

        assertThat(after.checkAll(present)).containsOnly(Membership.PRESENT);
        long blocked = LongStream.rangeClosed(1_000_001, 1_001_000).filter(id -> after.check(id) == Membership.ABSENT)
                .count();
        assertThat(blocked).as("absent keys blocked once loaded").isGreaterThan(950);
    }

    /** Read-only Redis users and backups must not learn a configured secret: only its fingerprint is in Redis. */
    @Test
    void neverWritesAConfiguredSecretToRedisAndDeletesTheCopyPublishedWhileItWasGenerated() {
        String published = HashSecrets.key("bg", REDIS.filterName()) + ":" + KeyHash.sipHash(SECRET).id();
        REDIS.client().commands().set(bytes(published), bytes(SECRET));

        KeyHash configured = HashSecrets.configured(REDIS.store(), "bg", REDIS.filterName(), SECRET.toUpperCase());
        HashSecrets.publish(REDIS.store(), "bg", REDIS.filterName(), configured);

        assertThat(configured).isEqualTo(KeyHash.sipHash(SECRET));
        assertThat(REDIS.client().commands().get(bytes(published))).as("the copy published when generated").isNull();
        assertThat(HashSecrets.find(REDIS.store(), "bg", REDIS.filterName(), configured.id())).isEmpty();
        assertThat(REDIS.client().commands().get(bytes(HashSecrets.key("bg", REDIS.filterName())))).as("not the generated secret's key")
                .isNull();
    }

    @Test
    void refusesAStoredSecretThatIsNoneNamingTheKey() {
        REDIS.client().commands().set(bytes(HashSecrets.key("bg", REDIS.filterName())), bytes("not a secret"));

        assertThatIllegalStateException().isThrownBy(() -> HashSecrets.stored(REDIS.store(), "bg", REDIS.filterName()))
                .withMessageContaining(HashSecrets.key("bg", REDIS.filterName())).withMessageContaining("32 hexadecimal digits");
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private RedisBloomFilter filter(FilterGeometry geometry, KeyHash hash) {
        return REDIS.filter(geometry).hash(hash)
                .build();
    }
}
