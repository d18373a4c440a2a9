package dev.bloomguard.core;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.hash.KeyHash;
import dev.bloomguard.core.hash.KeyType;
import dev.bloomguard.core.misses.RememberedMisses;
import dev.bloomguard.core.redis.RealRedis;
import dev.bloomguard.core.rollout.FilterResize;

/**
 * The names of a filter's Redis keys, golden: they are part of the stored format (see the
 * changelog's compatibility policy), so a change to them must be a deliberate one.
 */
class FilterKeysTests {

    private static final FilterGeometry GEOMETRY = FilterGeometry.of(1_000_000, 0.01);
    private static final Duration HEARTBEAT = Duration.ofMillis(500);
    private static final Duration GRACE = Duration.ofSeconds(2);

    /** A server of this class's own: only one test writes to it, so every key in it is one of that test's. */
    @RegisterExtension
    static final RealRedis REDIS = new RealRedis();

    @Test
    void namesTheLiveKeyAfterPrefixFilterAndGeometry() {
        assertThat(FilterKeys.of("bg", "user", GEOMETRY).live()).isEqualTo("bg:v1:{user:m9585088k7:0}");
    }

    @Test
    void startsEveryNameWithThePrefixAndTheFormatVersionBeforeTheHashTag() {
        assertThat(FilterKeys.FORMAT_VERSION).isEqualTo(1);
        assertThat(FilterKeys.start("bg", "user")).isEqualTo("bg:v1:{user");
        assertThat(FilterKeys.filterWide("bg", "user", "instances")).isEqualTo("bg:v1:{user}:instances");
        assertThat(FilterKeys.of("bg:Orders-Service", "user", GEOMETRY).live())
                .isEqualTo("bg:Orders-Service:v1:{user:m9585088k7:0}");
    }

    @Test
    void namesTheKeysOfAFilterWhateverItsGenerationInASlotOfTheirOwn() {
        assertThat(FilterKeys.filterWide("bg", "user", "generations")).isEqualTo("bg:v1:{user}:generations");
        assertThat(HashSecrets.key("bg", "user")).isEqualTo("bg:v1:{user}:hash-secret");
        assertThat(FilterResize.key("bg", "user", "1000000/0.01/1/-")).isEqualTo("bg:v1:{user}:resize:1000000/0.01/1/-");
        assertThat(hashTag(FilterResize.key("bg", "user", "1000000/0.01/1/-"))).isEqualTo("user");
    }

    @Test
    void putsEveryStagingKeyInTheLiveKeysHashSlot() {
        FilterKeys keys = FilterKeys.of("bg", "user", GEOMETRY);

        String staging = keys.newStaging();

        assertThat(staging).startsWith(keys.live() + ":staging:");
        assertThat(hashTag(staging)).isEqualTo(hashTag(keys.live())).isEqualTo("user:m9585088k7:0");
        assertThat(keys.newStaging()).isNotEqualTo(staging);
    }

    @Test
    void givesAnotherGeometryAnotherKey() {
        assertThat(FilterKeys.of("bg", "user", FilterGeometry.of(2_000_000, 0.01)).live())
                .isNotEqualTo(FilterKeys.of("bg", "user", GEOMETRY).live());
    }

    @Test
    void keepsTheNamesOfFiltersWithoutKeyTypeForKeyTypesThatStoreJavaFormsAsTheyWere() {
        for (KeyType type : new KeyType[] { KeyType.INTEGER, KeyType.UUID, KeyType.TEXT, KeyType.BYTES }) {
            assertThat(FilterKeys.of("bg", "user", GEOMETRY, type).live()).isEqualTo("bg:v1:{user:m9585088k7:0}");
        }
    }

    @Test
    void givesKeyTypesThatStoreTextOtherwiseKeysOfTheirOwn() {
        assertThat(FilterKeys.of("bg", "email", GEOMETRY, KeyType.TEXT_CASE_INSENSITIVE).live())
                .isEqualTo("bg:v1:{email:m9585088k7:text-case-insensitive:0}");
        assertThat(FilterKeys.of("bg", "code", GEOMETRY, KeyType.CHAR).live())
                .isEqualTo("bg:v1:{code:m9585088k7:char:0}");
    }

    @Test
    void namesASipHashFilterAfterTheFingerprintOfItsSecret() {
        KeyHash sipHash = KeyHash.sipHash("000102030405060708090a0b0c0d0e0f");

        assertThat(FilterKeys.of("bg", "user", GEOMETRY, null, sipHash.id()).live())
                .isEqualTo("bg:v1:{user:m9585088k7:sip-62c27cf4:0}");
        assertThat(FilterKeys.of("bg", "email", GEOMETRY, KeyType.TEXT_CASE_INSENSITIVE, sipHash.id()).live())
                .isEqualTo("bg:v1:{email:m9585088k7:text-case-insensitive:sip-62c27cf4:0}");
        assertThat(FilterKeys.of("bg", "user", GEOMETRY, KeyType.INTEGER, KeyHash.murmur3().id()).live())
                .isEqualTo("bg:v1:{user:m9585088k7:0}");
        assertThat(FilterKeys.of("bg", "user", GEOMETRY, null, KeyHash.sipHash("9f86d081884c7d659a2feaa0c55ad015").id())
                .live()).isNotEqualTo("bg:v1:{user:m9585088k7:sip-62c27cf4:0}");
    }

    @Test
    void rejectsAHashIdThatIsNotOne() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> FilterKeys.of("bg", "user", GEOMETRY, null, "sip-}x"))
                .withMessageContaining("hash id (sip-}x)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "user id", "user{1}", "a:b", "ü"})
    void rejectsFilterNamesThatWouldBreakTheKeyQuotingThem(String name) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> FilterKeys.of("bg", name, GEOMETRY))
                .withMessageContaining("filter name (" + name + ")");
    }

    @Test
    void rejectsABlankPrefix() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> FilterKeys.of(" ", "user", GEOMETRY))
                .withMessageContaining("key-prefix");
    }

    /**
     * Every key the library writes carries the format version, not only those {@link FilterKeys}
     * names: a filter that uses every feature with keys of its own (a siphash secret kept in
     * Redis, remembered misses, a rollout registry that records a generation left unwritten,
     * auto-resize, a catch-up turn, sharded generations) leaves nothing in Redis outside
     * <code>&lt;prefix&gt;:v1:&#123;&lt;filter&gt;</code>. A key built some other way fails here.
     */
    @Test
    void everyKeyInRedisCarriesTheFormatVersionBeforeTheFiltersHashTag() throws Exception {
        String prefix = "app";
        String name = REDIS.filterName();
        KeyHash secret = HashSecrets.stored(REDIS.store(), prefix, name);
        RedisBloomFilter resizing = RedisBloomFilter.builder(name, FilterGeometry.of(200, 0.01), REDIS.store())
                .keyPrefix(prefix).instanceId("resizing").hash(secret).keyType(KeyType.INTEGER)
                .checkTimeout(RealRedis.GENEROUS_CHECK_TIMEOUT).journalRetention(Duration.ofMillis(300))
                .rollout(HEARTBEAT, GRACE).autoResize(new FilterResize.Policy(Long.MAX_VALUE, FilterGeometry.MAX_BITS))
                .rememberMisses(new RememberedMisses.Settings(Duration.ofMinutes(1), 1_000, false)).build();
        RedisBloomFilter sharded = RedisBloomFilter
                .builder(name, FilterGeometry.withShards(2_000, 0.01, 2), REDIS.store()).keyPrefix(prefix).instanceId("sharded").hash(secret).keyType(KeyType.INTEGER)
                .checkTimeout(RealRedis.GENEROUS_CHECK_TIMEOUT).journalRetention(Duration.ofMillis(300))
                .rollout(HEARTBEAT, GRACE).build();
        Set<String> keys = new TreeSet<>();
        try {
            heartbeat(resizing, sharded);
            sharded.load(LongStream.rangeClosed(1, 600).boxed());
            resizing.load(LongStream.rangeClosed(1, 600).boxed()); // three times its 200: decides a resize
            heartbeat(resizing, sharded);
            resizing.add(700L);
            assertThat(resizing.rememberMissAsync(1_000_001L, "Users#find", System.nanoTime()).join()).isTrue();
            resizing.maintainJournal();
            resizing.tryCatchUpTurn("sql:users", Duration.ofMinutes(1)).orElseThrow().caughtUp(Instant.now());
            keys.addAll(keysInRedis());
            // Only the sharded instance heartbeats past a grace period (less than a heartbeat more, so
            // nothing is deleted yet): the resizing one's generation is then found left unwritten.
            Thread.sleep(GRACE.toMillis() + 100);
            heartbeat(sharded);
            heartbeat(resizing);
            keys.addAll(keysInRedis());
        }
        finally {
            resizing.close();
            sharded.close();
        }

        assertThat(keys).allSatisfy(key -> assertThat(key).startsWith("app:v1:{" + name));
        String filterWide = "app:v1:{" + name + "}:";
        assertThat(keys).contains(filterWide + "hash-secret", filterWide + "hash-secret:" + secret.id(),
                filterWide + "instances", filterWide + "generations", filterWide + "invalidated",
                filterWide + "catch-up:sql:users", filterWide + "catch-up:sql:users:turn",
                resizing.keys().live(), resizing.keys().meta(), resizing.keys().addCount(0),
                sharded.keys().live(1), sharded.keys().meta(1));
        assertThat(keys).anySatisfy(key -> assertThat(key).startsWith(filterWide + "resize:"));
        assertThat(keys).anySatisfy(key -> assertThat(key).startsWith(resizing.keys().live() + ":miss:"));
        assertThat(keys).anySatisfy(key -> assertThat(key).startsWith(resizing.keys().live() + ":added:"));
    }

    private static void heartbeat(RedisBloomFilter... filters) {
        for (RedisBloomFilter filter : filters) {
            filter.generations().orElseThrow().heartbeat();
        }
    }

    private static List<String> keysInRedis() {
        return REDIS.client().commands().keys("*".getBytes(UTF_8)).stream().map(key -> new String(key, UTF_8)).toList();
    }

    private static String hashTag(String key) {
        return key.substring(key.indexOf('{') + 1, key.indexOf('}'));
    }
}
