package dev.bloomguard.core.rollout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.LongConsumer;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.FilterState;
import dev.bloomguard.core.HashSecrets;
import dev.bloomguard.core.LoadRefusedException;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.hash.KeyHash;
import dev.bloomguard.core.hash.KeyType;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.BitmapStoreException;
import dev.bloomguard.core.redis.RealRedis;

/**
 * Generations of one filter whose instances differ in key type, against a real redis-server; each
 * heartbeat is called by hand, as the starter's scheduler would.
 */
class FilterGenerationsTests {

    private static final Duration HEARTBEAT = Duration.ofMillis(100);
    private static final Duration GRACE = Duration.ofSeconds(2);
    private static final Duration RETENTION = Duration.ofMillis(300);

    @RegisterExtension
    static final RealRedis REDIS = new RealRedis();

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

    /**
     * A deploy grows the filter while the warmup source is broken (a view redefined by mistake): the
     * new generation has no metadata of its own, so its load must be compared with what the live
     * generation holds, refused, and never answer; a load of the real table then answers and blocks.
     */
    @Test
    void aNewGenerationLoadedFromASourceThatReturnsAlmostNothingIsRefusedAndNeverAnswers() throws Exception {
        List<Long> present = LongStream.rangeClosed(1, 2_000).boxed().toList();
        RedisBloomFilter old = filter(FilterGeometry.of(10_000, 0.01), null, "broken-source");
        old.generations().orElseThrow().heartbeat();
        old.load(present.stream());
        RedisBloomFilter grown = filter(FilterGeometry.of(20_000, 0.01), null, "broken-source");
        grown.generations().orElseThrow().heartbeat();
        old.generations().orElseThrow().heartbeat(); // the old instance writes to the new generation too
        Thread.sleep(RETENTION.toMillis() + 50);
        old.generations().orElseThrow().heartbeat();
        grown.generations().orElseThrow().heartbeat();
        assertThat(grown.generations().orElseThrow().ownCoverable()).isTrue();

        assertThatThrownBy(() -> grown.load(Stream.of(1L, 2L))).isInstanceOf(LoadRefusedException.class)
                .hasMessageContaining("2000");
        old.generations().orElseThrow().heartbeat();
        grown.generations().orElseThrow().heartbeat();

        assertThat(grown.checkAll(present)).as("after the refused load").doesNotContain(Membership.ABSENT);
        assertThat(old.checkAll(present)).doesNotContain(Membership.ABSENT);
        grown.load(present.stream());
        grown.generations().orElseThrow().heartbeat();
        assertThat(grown.checkAll(present)).as("loaded from the real table").containsOnly(Membership.PRESENT);
        long blocked = LongStream.rangeClosed(1_000_001, 1_002_000).mapToObj(grown::check)
                .filter(Membership.ABSENT::equals).count();
        assertThat(blocked).as("the new generation blocks absent keys").isGreaterThan(1_900);
    }

    @Test
    void describesASiphashGenerationWithItsHashAndAMurmur3OneAsThePreviousReleaseDid() {
        FilterGeometry geometry = FilterGeometry.of(10_000, 0.01);
        KeyHash sipHash = KeyHash.sipHash("000102030405060708090a0b0c0d0e0f");

        String murmur3 = GenerationDescriptor.of(geometry, null, KeyHash.murmur3().id());
        String keyed = GenerationDescriptor.of(geometry, KeyType.INTEGER, sipHash.id());

        assertThat(murmur3).isEqualTo("10000/0.01/1/-").isEqualTo(GenerationDescriptor.of(geometry, null));
        assertThat(keyed).isEqualTo("10000/0.01/1/integer/sip-62c27cf4");
        assertThat(GenerationDescriptor.hashId(murmur3)).isEqualTo("murmur3");
        assertThat(GenerationDescriptor.hashId(keyed)).isEqualTo(sipHash.id());
        assertThat(GenerationDescriptor.geometry(keyed)).isEqualTo(geometry);
        assertThat(GenerationDescriptor.keyType(keyed)).isEqualTo(KeyType.INTEGER);
        assertThat(GenerationDescriptor.of(geometry, null, KeyHash.sipHash("9f86d081884c7d659a2feaa0c55ad015").id()))
                .isNotEqualTo(GenerationDescriptor.of(geometry, null, sipHash.id()));
        assertThatIllegalArgumentException().isThrownBy(() -> GenerationDescriptor.hashId("10000/0.01/1/-/md5"))
                .withMessageContaining("unknown hash (md5)");
    }

    /**
     * A deploy changes a filter's hash from murmur3 to siphash (secret generated in Redis). The new
     * instance answers from the old generation until its own covers every writer; the old instance
     * finds the secret in Redis and adds to both; nothing present is ever blocked.
     */
    @Test
    void aRollingChangeFromMurmur3ToSiphashNeverBlocksAKeyEitherSideAdds() throws Exception {
        FilterGeometry geometry = FilterGeometry.of(10_000, 0.01);
        RedisBloomFilter old = filter(geometry, null, "to-siphash");
        old.generations().orElseThrow().heartbeat();
        old.load(Stream.of("alice", "bob"));
        RedisBloomFilter upgraded = RedisBloomFilter.builder("to-siphash", geometry, REDIS.store())
                .hash(HashSecrets.stored(REDIS.store(), "bg", "to-siphash")).checkTimeout(Duration.ofSeconds(5))
                .journalRetention(RETENTION).rollout(HEARTBEAT, GRACE).build();
        upgraded.generations().orElseThrow().heartbeat();

        assertThat(upgraded.keys().live()).isNotEqualTo(old.keys().live()).contains(":" + upgraded.hash().id() + ":");
        assertThat(upgraded.checkAll(List.of("alice", "bob"))).as("answered by the murmur3 generation")
                .containsOnly(Membership.PRESENT);
        upgraded.add("carol");
        assertThat(old.check("carol")).as("the new instance adds to the old generation").isEqualTo(Membership.PRESENT);

        old.generations().orElseThrow().heartbeat(); // the old instance learns of the siphash generation
        old.add("dave");
        Thread.sleep(RETENTION.toMillis() + 50);
        old.generations().orElseThrow().heartbeat();
        upgraded.generations().orElseThrow().heartbeat();
        assertThat(upgraded.generations().orElseThrow().ownCoverable()).isTrue();
        upgraded.load(Stream.of("alice", "bob", "carol", "dave"));
        upgraded.generations().orElseThrow().heartbeat();

        assertThat(upgraded.generations().orElseThrow().answering().keys().live()).as("its own generation answers")
                .isEqualTo(upgraded.keys().live());
        old.add("erin");
        assertThat(upgraded.checkAll(List.of("alice", "bob", "carol", "dave", "erin"))).containsOnly(Membership.PRESENT);
        assertThat(old.checkAll(List.of("alice", "bob", "carol", "dave", "erin"))).containsOnly(Membership.PRESENT);
        long absent = Stream.iterate(0, i -> i + 1).limit(1_000).map(i -> "absent-" + i)
                .filter(key -> upgraded.check(key) == Membership.ABSENT).count();
        assertThat(absent).as("the siphash generation blocks absent keys").isGreaterThan(950);
    }

    /**
     * A release before keyed hashing reads a siphash descriptor as murmur3: with another geometry
     * it reports writing to that generation while it writes murmur3 bits to other keys. Its word
     * must not make the siphash generation coverable; a release that knows hashes counts.
     */
    @Test
    void aPreviousReleaseClaimingToWriteASiphashGenerationDoesNotMakeItCoverable() {
        RedisBloomFilter upgraded = RedisBloomFilter.builder("previous-release", FilterGeometry.of(20_000, 0.01), REDIS.store())
                .hash(KeyHash.sipHash("000102030405060708090a0b0c0d0e0f")).checkTimeout(Duration.ofSeconds(5))
                .journalRetention(RETENTION).rollout(HEARTBEAT, GRACE).build();
        upgraded.generations().orElseThrow().heartbeat();
        String oldDescriptor = GenerationDescriptor.of(FilterGeometry.of(10_000, 0.01), null);
        String keyed = GenerationDescriptor.of(upgraded.geometry(), upgraded.keyType().orElse(null), upgraded.hash().id());
        String instances = "bg:v1:{previous-release}:instances";
        String generations = "bg:v1:{previous-release}:generations";

        REDIS.store().heartbeat(instances, generations, "bg:v1:{previous-release}:invalidated", "previous-release-instance",
                oldDescriptor + "|" + oldDescriptor + "@0," + keyed + "@0", List.of(oldDescriptor), List.of());
        upgraded.generations().orElseThrow().heartbeat();

        assertThat(upgraded.generations().orElseThrow().ownCoverable()).isFalse();

        REDIS.store().heartbeat(instances, generations, "bg:v1:{previous-release}:invalidated", "previous-release-instance",
                oldDescriptor + "#hashes|" + oldDescriptor + "@0," + keyed + "@0", List.of(oldDescriptor), List.of());
        upgraded.generations().orElseThrow().heartbeat();

        assertThat(upgraded.generations().orElseThrow().ownCoverable()).isTrue();
    }

    /**
     * An instance cannot add to a generation hashed under a secret it cannot find, as a configured
     * one, which is never written to Redis: every heartbeat that meets it fails, naming the
     * fingerprint and never the secret, rather than leave that generation without its adds.
     */
    @Test
    void aGenerationUnderAConfiguredSecretFailsEveryHeartbeatThatMeetsItNamingOnlyItsFingerprint() {
        FilterGeometry geometry = FilterGeometry.of(10_000, 0.01);
        RedisBloomFilter old = filter(geometry, null, "unknown-secret");
        old.generations().orElseThrow().heartbeat();
        RedisBloomFilter keyed = RedisBloomFilter.builder("unknown-secret", geometry, REDIS.store())
                .hash(KeyHash.sipHash("9f86d081884c7d659a2feaa0c55ad015")).checkTimeout(Duration.ofSeconds(5))
                .journalRetention(RETENTION).rollout(HEARTBEAT, GRACE).build();
        keyed.generations().orElseThrow().heartbeat();

        for (int beat = 0; beat < 2; beat++) {
            assertThatThrownBy(() -> old.generations().orElseThrow().heartbeat()).isInstanceOf(BitmapStoreException.class)
                    .hasMessageContaining(keyed.hash().id()).hasMessageContaining("cannot find")
                    .hasMessageNotContaining("9f86d081");
            keyed.generations().orElseThrow().heartbeat();
        }
        assertThat(REDIS.store().get(HashSecrets.key("bg", "unknown-secret") + ":" + keyed.hash().id()))
                .as("the secret, published by no heartbeat").isEmpty();
    }

    /**
     * Redis loses the secrets (a flush) while instances run on them; a new instance generates
     * another. It can add to the generation of the running instances once they have published
     * their secret again (their next heartbeat), and they add to its new one: the filter is one
     * again, without a restart.
     */
    @Test
    void aSecretLostWhileInstancesRunIsPublishedAgainSoThatANewSecretsInstanceAddsToTheirGeneration() {
        FilterGeometry geometry = FilterGeometry.of(10_000, 0.01);
        RedisBloomFilter running = RedisBloomFilter.builder("lost-secret", geometry, REDIS.store())
                .hash(HashSecrets.stored(REDIS.store(), "bg", "lost-secret")).checkTimeout(Duration.ofSeconds(5))
                .journalRetention(RETENTION).rollout(HEARTBEAT, GRACE).build();
        running.generations().orElseThrow().heartbeat();
        running.load(Stream.of("alice", "bob"));
        REDIS.store().delete(HashSecrets.key("bg", "lost-secret"),
                HashSecrets.key("bg", "lost-secret") + ":" + running.hash().id());

        RedisBloomFilter started = RedisBloomFilter.builder("lost-secret", geometry, REDIS.store())
                .hash(HashSecrets.stored(REDIS.store(), "bg", "lost-secret")).checkTimeout(Duration.ofSeconds(5))
                .journalRetention(RETENTION).rollout(HEARTBEAT, GRACE).build();
        assertThat(started.hash()).isNotEqualTo(running.hash());
        assertThatThrownBy(() -> started.generations().orElseThrow().heartbeat())
                .as("before the running instance publishes its secret again").isInstanceOf(BitmapStoreException.class);

        running.generations().orElseThrow().heartbeat();
        started.generations().orElseThrow().heartbeat();
        running.generations().orElseThrow().heartbeat();

        started.add("carol");
        running.add("dave");
        assertThat(running.checkAll(List.of("alice", "bob", "carol", "dave"))).containsOnly(Membership.PRESENT);
        assertThat(started.checkAll(List.of("alice", "bob", "carol", "dave"))).doesNotContain(Membership.ABSENT);
    }

    /**
     * A rollback to the old configuration, started once nobody had heartbeated its generation for
     * the grace period, but before that generation was deleted: the instances of the new
     * configuration stopped writing to it, so it lacks the users they created since. The returning
     * instance must not answer from it (its metadata still says it covered every writer) until
     * it is loaded again, nor count the other side as a writer of it before its next heartbeat
     * (its warmer loads at once); then it blocks absent keys again. The other side is this
     * release, which says in the registry that it stops writing before it does, or a release
     * before it, which does not.
     */
    @ParameterizedTest(name = "other side of this release: {0}")
    @ValueSource(booleans = { true, false })
    void anInstanceReturningToAGenerationLeftUnwrittenDoesNotBlockWhatWasAddedMeanwhile(boolean thisRelease)
            throws Exception {
        String name = "return-gap-" + thisRelease;
        Duration heartbeat = Duration.ofMillis(500);
        FilterGeometry oldGeometry = FilterGeometry.of(10_000, 0.01);
        FilterGeometry newGeometry = FilterGeometry.of(20_000, 0.01);
        RedisBloomFilter old = rollout(name, oldGeometry, heartbeat);
        old.generations().orElseThrow().heartbeat();
        old.load(LongStream.rangeClosed(1, 100).boxed());

        RedisBloomFilter upgraded = thisRelease ? rollout(name, newGeometry, heartbeat)
                : RedisBloomFilter.builder(name, newGeometry, REDIS.store()).checkTimeout(Duration.ofSeconds(5)).build();
        EarlierReleaseInstance earlier = thisRelease ? null
                : new EarlierReleaseInstance(REDIS.store(), "bg", upgraded, "earlier-instance", GRACE);
        Runnable upgradedBeat = thisRelease ? () -> upgraded.generations().orElseThrow().heartbeat() : earlier::heartbeat;
        LongConsumer upgradedAdd = thisRelease ? upgraded::add : earlier::add;
        upgradedBeat.run();
        old.generations().orElseThrow().heartbeat();
        Thread.sleep(RETENTION.toMillis() + 100);
        upgradedBeat.run();
        old.generations().orElseThrow().heartbeat();
        upgraded.load(LongStream.rangeClosed(1, 100).boxed());
        old.generations().orElseThrow().close(); // the last old instance leaves

        Thread.sleep(GRACE.toMillis() + 100); // past the grace period, less than a heartbeat more
        upgradedBeat.run(); // stops writing to the old generation, which is not deleted yet
        upgradedAdd.accept(5_000L);
        upgradedAdd.accept(5_001L);

        assertThat(REDIS.store().hashGetAll(old.keys().meta())).as("the old generation is not deleted yet").isNotEmpty();
        RedisBloomFilter returning = rollout(name, oldGeometry, heartbeat);
        returning.generations().orElseThrow().heartbeat();
        assertThat(returning.checkAll(List.of(5_000L, 5_001L))).as("created while nobody wrote to the old generation")
                .doesNotContain(Membership.ABSENT);
        // A second instance of the rollback (or this one restarted) starts after that heartbeat, and
        // its warmer loads at once, before the other side's next heartbeat says what it writes to;
        // the other side adds a user after the load's snapshot.
        // Its ready marker set again, as though the returning instance had died before clearing it:
        // what was found is in Redis, not in that instance.
        REDIS.client().commands().setbit(old.keys().live().getBytes(StandardCharsets.UTF_8),
                oldGeometry.markerOffset(), 1);
        RedisBloomFilter second = rollout(name, oldGeometry, heartbeat);
        second.generations().orElseThrow().heartbeat();
        assertThat(second.checkAll(List.of(5_000L, 5_001L))).as("on a second instance, the marker set")
                .doesNotContain(Membership.ABSENT);
        try (RedisBloomFilter.PendingLoad load = second.beginLoad()) {
            upgradedAdd.accept(5_003L);
            load.load(Stream.concat(LongStream.rangeClosed(1, 100).boxed(), Stream.of(5_000L, 5_001L)).iterator(),
                    null, null, false);
        }
        second.generations().orElseThrow().heartbeat();
        returning.generations().orElseThrow().heartbeat();
        assertThat(second.checkAll(List.of(5_000L, 5_001L, 5_003L))).as("created while the second instance loaded")
                .doesNotContain(Membership.ABSENT);
        assertThat(returning.checkAll(List.of(5_000L, 5_001L, 5_003L))).doesNotContain(Membership.ABSENT);

        upgradedBeat.run(); // writes to the old generation again
        Thread.sleep(RETENTION.toMillis() + 100);
        upgradedBeat.run();
        returning.generations().orElseThrow().heartbeat();
        returning.load(Stream.concat(LongStream.rangeClosed(1, 100).boxed(), Stream.of(5_000L, 5_001L, 5_003L)));
        returning.generations().orElseThrow().heartbeat();
        upgradedAdd.accept(5_002L);
        assertThat(returning.checkAll(List.of(1L, 100L, 5_000L, 5_001L, 5_002L))).containsOnly(Membership.PRESENT);
        assertThat(returning.status().state()).isEqualTo(FilterState.READY);
        assertThat(returning.checkAll(LongStream.rangeClosed(1_000_000, 1_000_999).boxed().toList()))
                .as("most absent keys are blocked once it is loaded again").filteredOn(Membership.ABSENT::equals)
                .hasSizeGreaterThan(950);
        if (earlier != null) {
            earlier.close();
        }
    }

    private static RedisBloomFilter rollout(String name, FilterGeometry geometry, Duration heartbeat) {
        return RedisBloomFilter.builder(name, geometry, REDIS.store()).checkTimeout(Duration.ofSeconds(5))
                .journalRetention(RETENTION).rollout(heartbeat, GRACE).build();
    }

    /**
     * An instance that shuts down takes itself out of the rollout registry, a courtesy: its entry
     * expires after the grace period anyway. With Redis not answering, that courtesy held the
     * shutdown for the store's whole operation timeout (10 s in production's write-timeout; a
     * test JVM's exit was killed by its 5 s limit); it now waits half a second at most.
     */
    @Test
    void leavingTheRegistryDoesNotHoldAShutdownWhileRedisDoesNotAnswer() {
        RedisBloomFilter leaving = filter(FilterGeometry.of(10_000, 0.01), KeyType.TEXT, "leaving");
        FilterGenerations<?> generations = leaving.generations().orElseThrow();
        generations.heartbeat();
        leaving.load(Stream.of("alice", "bob"));
        generations.heartbeat();
        assertThat(leaving.check("alice")).isEqualTo(Membership.PRESENT);

        REDIS.client().commands().clientPause(3_000); // Redis answers nothing for 3 s
        long started = System.nanoTime();
        generations.close();
        Duration took = Duration.ofNanos(System.nanoTime() - started);

        assertThat(took).as("closing the generations while Redis does not answer").isLessThan(Duration.ofMillis(1_500));
        leaving.close();
    }

    private static RedisBloomFilter filter(FilterGeometry geometry, KeyType keyType) {
        return filter(geometry, keyType, "generations");
    }

    private static RedisBloomFilter filter(FilterGeometry geometry, KeyType keyType, String name) {
        return RedisBloomFilter.builder(name, geometry, REDIS.store()).keyType(keyType)
                .checkTimeout(Duration.ofSeconds(5)).journalRetention(RETENTION).rollout(HEARTBEAT, GRACE).build();
    }
}
