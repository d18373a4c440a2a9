package dev.bloomguard.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Keys of shapes other than a single value or a collection, on real Redis: {@code Optional}
 * is unwrapped, null elements of a batch are skipped, and a key the guard cannot check is a
 * {@link BloomGuardException} that says why, never a rejection.
 */
@SpringBootTest(classes = KeyShapeTests.App.class, properties = { "bloom-guard.key-prefix=shapes",
        "bloom-guard.redis-timeout=5s", "bloom-guard.filters.item.expected-insertions=1000",
        "bloom-guard.max-batch-size=" + KeyShapeTests.MAX_BATCH })
class KeyShapeTests {

    static final int MAX_BATCH = 50;

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        RealServers.registerRedis(registry);
    }

    @Autowired
    Items items;

    @Autowired
    BloomFilterRegistry registry;

    @Autowired
    MeterRegistry meters;

    private long absent;

    @BeforeEach
    void loadFilter() {
        RedisBloomFilter filter = registry.filter("item");
        filter.load(LongStream.rangeClosed(1, 100).boxed());
        absent = LongStream.rangeClosed(1_000, 100_000).filter(id -> filter.check(id) == Membership.ABSENT)
                .findFirst().orElseThrow();
    }

    @Test
    void optionalKeysAreUnwrappedAndAnEmptyOneGoesThroughUnchecked() {
        assertThat(items.byOptional(Optional.of(7L))).isEqualTo("item Optional[7]");
        assertThatThrownBy(() -> items.byOptional(Optional.of(absent))).isInstanceOf(BloomGuardRejectedException.class);
        double checks = checks();
        assertThat(items.byOptional(Optional.empty())).isEqualTo("item Optional.empty");
        assertThat(checks()).as("an empty Optional is not checked").isEqualTo(checks);
    }

    @Test
    void primitiveOptionalKeysAreUnwrappedToo() {
        assertThat(items.byOptionalLong(OptionalLong.of(7L))).isEqualTo("item OptionalLong[7]");
        assertThatThrownBy(() -> items.byOptionalLong(OptionalLong.of(absent)))
                .isInstanceOf(BloomGuardRejectedException.class);
        assertThat(items.byOptionalLong(OptionalLong.empty())).isEqualTo("item OptionalLong.empty");
    }

    @Test
    void aPutKeyWrittenForTheOptionalItselfStillAddsItsValue() {
        long created = absent;
        assertThat(items.createOptional(created)).contains(created);
        assertThat(items.byAnything(created)).isEqualTo("item " + created);
    }

    @Test
    void batchesSkipNullElements() {
        assertThatThrownBy(() -> items.byBatch(Arrays.asList(null, absent, null)))
                .as("a null element does not let a batch of absent keys through")
                .isInstanceOf(BloomGuardRejectedException.class);
        assertThat(items.byBatch(Arrays.asList(null, absent, 5L))).isEqualTo("item [null, " + absent + ", 5]");
        double checks = checks();
        assertThat(items.byBatch(Arrays.asList(null, null))).isEqualTo("item [null, null]");
        assertThat(checks()).as("a batch of only nulls is not checked").isEqualTo(checks);
    }

    @Test
    void keysTheGuardCannotCheckFailTheCallWithAClearMessageNeverARejection() {
        int before = items.calls();
        Iterable<Long> notACollection = () -> List.of(absent).iterator();
        List<Object> unsupported = List.of(Map.of(absent, "x"), Stream.of(absent), notACollection, Double.NaN,
                new Object(), List.of(Map.of(absent, "x")));
        for (Object key : unsupported) {
            assertThatThrownBy(() -> items.byAnything(key))
                    .isInstanceOf(BloomGuardException.class)
                    .isNotInstanceOf(BloomGuardRejectedException.class)
                    .hasMessageContaining("Items.byAnything")
                    .hasMessageContaining("filter 'item'")
                    .satisfies(ex -> assertThat(ex.getMessage()).doesNotContain(Long.toString(absent)));
        }
        assertThat(items.calls()).as("the method never ran").isEqualTo(before);
        assertThatThrownBy(() -> items.byAnything(absent)).isInstanceOf(BloomGuardRejectedException.class);
        assertThat(items.byAnything(8L)).isEqualTo("item 8");
    }

    @Test
    void aBatchLargerThanMaxBatchSizeIsSentInBoundedCommandsAndStillAnsweredAsOne() {
        RedisBloomFilter filter = registry.filter("item");
        List<Long> absentKeys = LongStream.rangeClosed(1_000, 1_000_000).filter(id -> filter.check(id) == Membership.ABSENT)
                .limit(3 * MAX_BATCH - 1).boxed().toList();
        List<Long> lastOnePresent = new ArrayList<>(absentKeys);
        lastOnePresent.add(9L);
        int hashes = filter.geometry().hashes();
        long biggestAllowed = 2 + 3L * (MAX_BATCH * hashes + 1);

        List<List<String>> checks = slowlogOf(() -> {
            assertThatThrownBy(() -> items.byBatch(absentKeys)).as("a batch of absent keys, in three commands")
                    .isInstanceOf(BloomGuardRejectedException.class);
            assertThat(items.byBatch(lastOnePresent)).as("a present key in the last chunk lets the batch through")
                    .startsWith("item [");
        }, "BITFIELD_RO");
        assertThat(checks).as("BITFIELD_RO commands of two batches of %d keys", absentKeys.size()).hasSizeGreaterThanOrEqualTo(6);
        assertThat(checks).allSatisfy(args -> assertThat(argumentCount(args)).isLessThanOrEqualTo(biggestAllowed));

        List<Long> created = absentKeys.subList(0, absentKeys.size() - 1);
        List<List<String>> journaled = slowlogOf(() -> assertThat(items.createAll(created)).isEqualTo(created.size()),
                "RPUSH");
        assertThat(journaled).as("journal entries of a batch of %d adds", created.size()).hasSizeGreaterThanOrEqualTo(3);
        assertThat(journaled).allSatisfy(args -> assertThat(argumentCount(args)).isLessThanOrEqualTo(2 + MAX_BATCH));
        assertThat(created).as("every key of a bounded add was added").allSatisfy(
                id -> assertThat(items.byAnything(id)).isEqualTo("item " + id));
    }

    @Test
    void aKeyExpressionThatFailsOnTheCallersInputNeverEchoesIt() {
        String hostile = "<script>steal()</script>";
        int before = items.calls();
        assertThatThrownBy(() -> items.byNumberText(hostile))
                .isInstanceOf(BloomGuardException.class)
                .isNotInstanceOf(BloomGuardRejectedException.class)
                .hasMessageContaining("Items.byNumberText")
                .hasMessageContaining("filter 'item'")
                .satisfies(ex -> {
                    for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
                        assertThat(cause.getMessage()).as("message of %s", cause.getClass().getName())
                                .doesNotContain("steal");
                    }
                });
        assertThat(items.calls()).as("the method never ran").isEqualTo(before);
        assertThat(items.byNumberText("7")).isEqualTo("item 7");
        assertThatThrownBy(() -> items.byNumberText(Long.toString(absent)))
                .isInstanceOf(BloomGuardRejectedException.class);
    }

    /** The arguments of each {@code commands} command the test Redis ran during {@code action}. */
    private List<List<String>> slowlogOf(Runnable action, String... commands) {
        List<Object> entries;
        try (RedisClient client = RedisClient.create("redis://" + RealServers.redis().host() + ":"
                + RealServers.redis().port());
                StatefulRedisConnection<String, String> admin = client.connect()) {
            admin.sync().configSet("slowlog-max-len", "10000");
            admin.sync().configSet("slowlog-log-slower-than", "0");
            admin.sync().slowlogReset();
            try {
                action.run();
                entries = admin.sync().slowlogGet(10_000);
            }
            finally {
                admin.sync().configSet("slowlog-log-slower-than", "10000");
            }
        }
        List<List<String>> found = new ArrayList<>();
        for (Object entry : entries) {
            List<String> args = ((List<?>) ((List<?>) entry).get(3)).stream().map(String::valueOf).toList();
            if (List.of(commands).contains(args.get(0).toUpperCase(Locale.ROOT))
                    && String.join(" ", args).contains("shapes")) {
                found.add(args);
            }
        }
        return found;
    }

    /** Redis's slow log keeps 32 arguments and says how many it left out. */
    private static long argumentCount(List<String> args) {
        Matcher more = Pattern.compile("\\.\\.\\. \\((\\d+) more arguments\\)").matcher(args.get(args.size() - 1));
        return more.matches() ? args.size() - 1 + Long.parseLong(more.group(1)) : args.size();
    }

    private double checks() {
        return meters.get("bloomguard.checks").tag("filter", "item").counters().stream()
                .mapToDouble(counter -> counter.count()).sum();
    }

    public static class Items {

        private final AtomicInteger calls = new AtomicInteger();

        int calls() {
            return calls.get();
        }

        @BloomGuard(filter = "item", key = "#id")
        public String byOptional(Optional<Long> id) {
            return item(id);
        }

        @BloomGuard(filter = "item", key = "#id")
        public String byOptionalLong(OptionalLong id) {
            return item(id);
        }

        /** Written for the Optional itself, not its value (#result). */
        @BloomPut(filter = "item", key = "#result.get()")
        public Optional<Long> createOptional(long id) {
            return Optional.of(id);
        }

        @BloomGuard(filter = "item", key = "#ids")
        public String byBatch(List<Long> ids) {
            return item(ids);
        }

        @BloomGuard(filter = "item", key = "T(java.lang.Long).parseLong(#text)")
        public String byNumberText(String text) {
            return item(text);
        }

        @BloomPut(filter = "item", key = "#ids")
        public int createAll(List<Long> ids) {
            return ids.size();
        }

        @BloomGuard(filter = "item", key = "#key")
        public String byAnything(Object key) {
            return item(key);
        }

        private String item(Object key) {
            calls.incrementAndGet();
            return "item " + key;
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration(excludeName = { BootNames.DATA_SOURCE_3, BootNames.DATA_SOURCE_4 })
    static class App {

        @Bean
        Items items() {
            return new Items();
        }
    }
}
