package dev.bloomguard.core.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

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
 * Generations of one filter whose instances differ in key type, against a real redis-server; each
 * heartbeat is called by hand, as the starter's scheduler would.
 */
class FilterGenerationsTest {

    private static final Duration HEARTBEAT = Duration.ofMillis(100);
    private static final Duration GRACE = Duration.ofSeconds(2);
    private static final Duration RETENTION = Duration.ofMillis(300);

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

    /**
     * A deploy changes a filter's key type from text to case-insensitive text. The old generation
     * hashed "alice" as it is; the new instance must not answer "ALICE" from it (ABSENT there,
     * present for the new configuration) but bypass until its own generation covers every writer.
     */
    @Test
    void aNewKeyTypeIsNeverAnsweredByAGenerationThatHashesKeysAnotherWay() throws Exception {
        FilterGeometry geometry = FilterGeometry.of(10_000, 0.01);
        RedisBloomFilter old = filter(geometry, KeyType.TEXT);
        old.generations().orElseThrow().heartbeat();
        old.load(Stream.of("alice", "bob"));
        RedisBloomFilter upgraded = filter(geometry, KeyType.TEXT_CASE_INSENSITIVE);
        upgraded.generations().orElseThrow().heartbeat();

        assertThat(upgraded.check("ALICE")).as("before its own generation is loaded").isNotEqualTo(Membership.ABSENT);
        upgraded.load(Stream.of("alice", "bob"));
        assertThat(upgraded.check("ALICE")).as("loaded while the old instance did not write to it yet")
                .isNotEqualTo(Membership.ABSENT);

        old.generations().orElseThrow().heartbeat(); // the old instance learns of the new generation
        old.add("carol");
        assertThat(upgraded.check("CAROL")).isNotEqualTo(Membership.ABSENT);
        Thread.sleep(RETENTION.toMillis() + 50);
        old.generations().orElseThrow().heartbeat();
        upgraded.generations().orElseThrow().heartbeat(); // coverable now: asks for a load
        assertThat(upgraded.generations().orElseThrow().ownCoverable()).isTrue();
        upgraded.load(Stream.of("alice", "bob", "carol"));

        assertThat(upgraded.checkAll(List.of("ALICE", "Bob", "carol"))).containsOnly(Membership.PRESENT);
        old.add("dave"); // the old instance still adds to both
        assertThat(upgraded.check("DAVE")).isEqualTo(Membership.PRESENT);
        assertThat(old.checkAll(List.of("alice", "bob", "carol", "dave"))).containsOnly(Membership.PRESENT);
        long absent = Stream.iterate(0, i -> i + 1).limit(1_000).map(i -> "absent-" + i)
                .filter(key -> upgraded.check(key) == Membership.ABSENT).count();
        assertThat(absent).as("the new generation blocks absent keys").isGreaterThan(950);
    }

    /**
     * Adds an instance had to give up are missing from every generation it writes to; its own is
     * re-warmed by the starter, the others are made not ready so that their instances bypass and
     * reload them rather than block the keys.
     */
    @Test
    void givingUpAddsMakesTheOtherGenerationsNotReady() throws Exception {
        RedisBloomFilter old = filter(FilterGeometry.of(10_000, 0.01), null, "give-up");
        old.generations().orElseThrow().heartbeat();
        old.load(Stream.of("alice"));
        RedisBloomFilter upgraded = filter(FilterGeometry.of(20_000, 0.01), null, "give-up");
        upgraded.generations().orElseThrow().heartbeat();
        assertThat(old.check("never-added")).isEqualTo(Membership.ABSENT);

        upgraded.generations().orElseThrow().invalidateOthers();

        assertThat(old.check("never-added")).as("the old instance bypasses its generation")
                .isEqualTo(Membership.NOT_READY);
        old.load(Stream.of("alice", "given-up"));
        assertThat(old.check("given-up")).isEqualTo(Membership.PRESENT);
        assertThat(old.check("never-added")).isEqualTo(Membership.ABSENT);
    }

    private static RedisBloomFilter filter(FilterGeometry geometry, KeyType keyType) {
        return filter(geometry, keyType, "generations");
    }

    private static RedisBloomFilter filter(FilterGeometry geometry, KeyType keyType, String name) {
        return RedisBloomFilter.builder(name, geometry, store).keyType(keyType)
                .checkTimeout(Duration.ofSeconds(5)).journalRetention(RETENTION).rollout(HEARTBEAT, GRACE).build();
    }
}
