package dev.bloomguard.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
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
import dev.bloomguard.core.RedisBloomFilter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Keys of shapes other than a single value or a collection, on real Redis: {@code Optional}
 * is unwrapped, null elements of a batch are skipped, and a key the guard cannot check is a
 * {@link BloomGuardException} that says why, never a rejection.
 */
@SpringBootTest(classes = KeyShapeTests.App.class, properties = { "bloom-guard.key-prefix=shapes",
        "bloom-guard.redis-timeout=5s", "bloom-guard.filters.item.expected-insertions=1000" })
class KeyShapeTests {

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

        /** Written before #result of an Optional was its value. */
        @BloomPut(filter = "item", key = "#result.get()")
        public Optional<Long> createOptional(long id) {
            return Optional.of(id);
        }

        @BloomGuard(filter = "item", key = "#ids")
        public String byBatch(List<Long> ids) {
            return item(ids);
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
