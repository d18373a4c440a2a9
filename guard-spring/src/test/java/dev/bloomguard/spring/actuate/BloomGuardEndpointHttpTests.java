package dev.bloomguard.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import com.fasterxml.jackson.databind.JsonNode;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.Hold;
import dev.bloomguard.core.LoadReport;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.spring.AbstractServedApplicationTests;
import dev.bloomguard.spring.BloomKeySource;
import dev.bloomguard.spring.RealServers;
import dev.bloomguard.spring.TestHttp;
import dev.bloomguard.spring.metrics.BloomGuardMetricNames;
import dev.bloomguard.spring.warmup.KeySource;
import dev.bloomguard.spring.warmup.RepositoryKeySource;
import dev.bloomguard.testsupport.Await;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The operators' view over a real server and socket: the {@code bloomguard} endpoint, the
 * {@code bloomGuard} health contributor and the gauges, for filters in real Redis, one of them
 * warmed and rebuilt from real PostgreSQL.
 */
@SpringBootTest(classes = BloomGuardEndpointHttpTests.App.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
                "bloom-guard.key-prefix=actuate-http",
                "bloom-guard.redis-timeout=5s",
                "bloom-guard.status-refresh-interval=300ms",
                "management.endpoints.web.exposure.include=bloomguard,health",
                "management.endpoint.bloomguard.access=unrestricted",
                "management.endpoint.health.show-details=always",
                "bloom-guard.filters.loaded.expected-insertions=100000",
                "bloom-guard.filters.rebuilt.expected-insertions=10000",
                "bloom-guard.filters.rebuilt.warmup.sql=SELECT id FROM actuate_items",
                "bloom-guard.filters.rebuilt.warmup.blocking=true",
                "bloom-guard.filters.idle.expected-insertions=1000",
                "bloom-guard.filters.grown.expected-insertions=100000",
                "bloom-guard.filters.cooled.expected-insertions=10000",
                "bloom-guard.filters.cooled.warmup.sql=SELECT id FROM actuate_items",
                "bloom-guard.filters.cooled.warmup.on-startup=false",
                "bloom-guard.filters.broken.expected-insertions=1000",
                "bloom-guard.filters.broken.warmup.sql=SELECT CAST(v AS bigint) AS id FROM (VALUES ('1'), ('"
                        + BloomGuardEndpointHttpTests.ROW_TEXT + "')) AS t(v)",
                "bloom-guard.filters.broken.warmup.on-startup=false",
                "bloom-guard.filters.streamed.expected-insertions=10000",
                "bloom-guard.filters.streamed.warmup.blocking=true",
                "bloom-guard.filters.streamed.key-type=integer" })
@DirtiesContext
@ExtendWith(OutputCaptureExtension.class)
class BloomGuardEndpointHttpTests extends AbstractServedApplicationTests {

    private static final int LOADED_KEYS = 20_000;
    private static final int ITEMS = 5_000;
    private static final Duration DEADLINE = Duration.ofSeconds(20);
    /** A value the broken warmup query cannot read, which PostgreSQL quotes in its error. */
    static final String ROW_TEXT = "row-text-of-a-customer";

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        RealServers.execute("DROP TABLE IF EXISTS actuate_items", "CREATE TABLE actuate_items (id BIGINT PRIMARY KEY)",
                "INSERT INTO actuate_items SELECT g FROM generate_series(1, " + ITEMS + ") g",
                "DROP TABLE IF EXISTS actuate_streamed_items",
                "CREATE TABLE actuate_streamed_items (id BIGINT PRIMARY KEY)",
                "INSERT INTO actuate_streamed_items SELECT g FROM generate_series(1, " + ITEMS + ") g");
        RealServers.registerPostgres(registry);
    }

    @Autowired
    FilterStatusCache statuses;

    @Autowired
    MeterRegistry meters;

    @Test
    void listsAProgrammaticallyLoadedFilterAsReadyWithItsGeometryCountsAndLastLoad() {
        RedisBloomFilter filter = registry.filter("loaded");
        LoadReport report = filter.load(LongStream.rangeClosed(1, LOADED_KEYS).boxed());

        JsonNode loaded = poll(() -> get("/actuator/bloomguard").path("filters").path("loaded"),
                node -> !readAt(node).isBefore(report.finishedAt()));

        FilterGeometry geometry = filter.geometry();
        assertThat(loaded.path("name").asText()).isEqualTo("loaded");
        assertThat(loaded.path("state").asText()).isEqualTo("READY");
        assertThat(loaded.path("geometry").path("expectedInsertions").asLong()).isEqualTo(100_000);
        assertThat(loaded.path("geometry").path("fpp").asDouble()).isEqualTo(0.01);
        assertThat(loaded.path("geometry").path("bits").asLong()).isEqualTo(geometry.bits());
        assertThat(loaded.path("geometry").path("hashes").asInt()).isEqualTo(geometry.hashes());
        assertThat(loaded.path("key").asText()).isEqualTo(filter.keys().live());
        assertThat(loaded.path("bitCount").asLong()).isPositive();
        assertThat(loaded.path("fillRatio").asDouble())
                .isCloseTo((double) loaded.path("bitCount").asLong() / geometry.bits(), within(1e-12));
        assertThat(loaded.path("estimatedFpp").asDouble())
                .isCloseTo(Math.pow(loaded.path("fillRatio").asDouble(), geometry.hashes()), within(1e-12));
        assertThat(loaded.path("approximateCount").asLong()).isCloseTo(LOADED_KEYS, within((long) (LOADED_KEYS * 0.03)));
        assertThat(Instant.parse(loaded.path("liveSince").asText())).isEqualTo(report.finishedAt().truncatedTo(ChronoUnit.MILLIS));
        assertThat(loaded.path("liveKeys").asLong()).isEqualTo(LOADED_KEYS);
        assertThat(loaded.path("loadedBy").asText()).isEqualTo(filter.instanceId());
        assertThat(loaded.path("instance").asText()).isEqualTo(filter.instanceId());
        assertThat(loaded.has("lockHolder")).isFalse();
        assertThat(loaded.path("lastLoad").path("keys").asLong()).isEqualTo(LOADED_KEYS);
        assertThat(Duration.parse(loaded.path("lastLoad").path("duration").asText())).isEqualTo(report.duration());
        assertThat(Instant.parse(loaded.path("lastLoad").path("finishedAt").asText())).isEqualTo(report.finishedAt());
        assertThat(loaded.path("warming").asBoolean()).isFalse();
        assertThat(loaded.path("circuit").asText()).isEqualTo("CLOSED");

        JsonNode filters = get("/actuator/bloomguard").path("filters");
        assertThat(filters.fieldNames()).toIterable().containsExactly("loaded", "rebuilt", "idle", "grown", "cooled",
                "broken", "streamed");
        assertThat(filters.path("rebuilt").path("state").asText()).isEqualTo("READY");
        assertThat(filters.path("idle").path("state").asText()).isEqualTo("DEGRADED");
        assertThat(filters.path("idle").has("lastLoad")).isFalse();
    }

    @Test
    void showsOneFilterFromTheCachedStatusWithoutCountingBitsPerRequest() {
        RedisBloomFilter filter = registry.filter("grown");
        filter.load(LongStream.rangeClosed(1, LOADED_KEYS).boxed());
        poll(() -> statuses.snapshot("grown").orElseThrow(), cached -> cached.status().lastLoad().equals(filter.lastLoad()));
        statuses.stop();
        try {
            // Adds change the bits but not the last load: only a read of Redis could see them.
            filter.addAll(LongStream.rangeClosed(LOADED_KEYS + 1, LOADED_KEYS + 10_000).boxed().toList());
            FilterStatusCache.Snapshot cached = statuses.snapshot("grown").orElseThrow();

            JsonNode one = get("/actuator/bloomguard/grown");

            assertThat(statuses.snapshot("grown")).as("nothing read Redis for the request").containsSame(cached);
            assertThat(readAt(one)).isEqualTo(cached.readAt());
            assertThat(one.path("name").asText()).isEqualTo("grown");
            assertThat(one.path("state").asText()).isEqualTo("READY");
            assertThat(one.path("approximateCount").asLong()).isEqualTo(cached.status().approximateCount())
                    .isCloseTo(LOADED_KEYS, within((long) (LOADED_KEYS * 0.03)));
            assertThat(one.path("geometry").path("bits").asLong()).isEqualTo(filter.geometry().bits());
        }
        finally {
            statuses.start();
        }
    }

    /** Issue 34: why an instance does not block is visible where operators look, not only in its answers. */
    @Test
    void showsTheReasonsThisInstanceHoldsNotToBlockAsTheyAreAtTheRequest() {
        RedisBloomFilter filter = registry.filter("loaded");
        filter.load(LongStream.rangeClosed(1, LOADED_KEYS).boxed());
        long absent = LongStream.range(10L * LOADED_KEYS, 11L * LOADED_KEYS)
                .filter(id -> filter.check(id) == Membership.ABSENT).findFirst().orElseThrow();
        assertThat(get("/actuator/bloomguard/loaded").path("holds").isArray()).isTrue();
        assertThat(get("/actuator/bloomguard/loaded").path("holds")).isEmpty();

        filter.hold(Hold.PENDING_ADDS);
        try {
            JsonNode held = get("/actuator/bloomguard/loaded").path("holds");
            assertThat(held).extracting(JsonNode::asText).containsExactly("PENDING_ADDS");
            assertThat(get("/actuator/bloomguard").path("filters").path("loaded").path("holds"))
                    .extracting(JsonNode::asText).containsExactly("PENDING_ADDS");
            assertThat(filter.check(absent)).as("a clear bit while a reason is held").isEqualTo(Membership.NOT_READY);
        }
        finally {
            filter.release(Hold.PENDING_ADDS);
        }
        assertThat(get("/actuator/bloomguard/loaded").path("holds")).isEmpty();
        assertThat(filter.check(absent)).isEqualTo(Membership.ABSENT);
    }

    @Test
    void unknownFilterIsNotFound() {
        assertThat(new TestHttp(port).get("/actuator/bloomguard/nope").getStatusCode().value()).isEqualTo(404);
    }

    /** {@code rebuilt} is warmed from its SQL, {@code streamed} from a key source bean over a table of its own. */
    @ParameterizedTest
    @CsvSource({ "rebuilt, actuate_items, warmup.sql", "streamed, actuate_streamed_items, stream actuate_streamed_items" })
    void postRebuildsTheFilterFromItsKeySourceInTheBackground(String filter, String table, String source) {
        JsonNode before = get("/actuator/bloomguard/" + filter);
        assertThat(before.path("source").asText()).isEqualTo(source);
        assertThat(before.path("state").asText()).isEqualTo("READY");
        assertThat(before.path("liveKeys").asLong()).isEqualTo(ITEMS);
        Instant liveSinceBefore = Instant.parse(before.path("liveSince").asText());
        RealServers.execute("INSERT INTO " + table + " SELECT g FROM generate_series(" + (ITEMS + 1) + ", "
                + (ITEMS + 1_000) + ") g");

        ResponseEntity<String> response = new TestHttp(port).post("/actuator/bloomguard/" + filter);

        assertThat(response.getStatusCode().value()).isEqualTo(200);
        assertThat(TestHttp.json(response.getBody()).path("filter").asText()).isEqualTo(filter);
        assertThat(TestHttp.json(response.getBody()).path("rebuild").asText()).isEqualTo("started");
        JsonNode after = poll(() -> get("/actuator/bloomguard/" + filter),
                node -> Instant.parse(node.path("liveSince").asText()).isAfter(liveSinceBefore));
        assertThat(Instant.parse(after.path("lastLoad").path("finishedAt").asText())).isAfter(liveSinceBefore);
        assertThat(after.path("liveKeys").asLong()).isEqualTo(ITEMS + 1_000);
        assertThat(after.path("lastLoad").path("keys").asLong()).isEqualTo(ITEMS + 1_000);
        assertThat(after.path("state").asText()).isEqualTo("READY");
        assertThat(registry.filter(filter).mightContain(ITEMS + 1_000L)).isTrue();
    }

    @Test
    void postForAFilterWithoutWarmupSqlOrAnUnknownFilterIsABadRequest() {
        assertThat(new TestHttp(port).post("/actuator/bloomguard/idle").getStatusCode().value())
                .isEqualTo(400);
        assertThat(new TestHttp(port).post("/actuator/bloomguard/nope").getStatusCode().value())
                .isEqualTo(400);
    }

    @Test
    void aSecondRebuildOfAFilterWithinTheCooldownIsTooManyRequests() {
        ResponseEntity<String> first = new TestHttp(port).post("/actuator/bloomguard/cooled");
        ResponseEntity<String> second = new TestHttp(port).post("/actuator/bloomguard/cooled");

        assertThat(first.getStatusCode().value()).isEqualTo(200);
        assertThat(TestHttp.json(first.getBody()).path("rebuild").asText()).isEqualTo("started");
        assertThat(second.getStatusCode().value()).isEqualTo(429);
        JsonNode refused = TestHttp.json(second.getBody());
        assertThat(refused.path("filter").asText()).isEqualTo("cooled");
        assertThat(refused.path("rebuild").asText()).isEqualTo("cooling-down");
        assertThat(Duration.parse(refused.path("retryAfter").asText())).isPositive()
                .isLessThanOrEqualTo(Duration.ofMinutes(1));
        JsonNode cooled = poll(() -> get("/actuator/bloomguard/cooled"), node -> node.has("lastLoad"));
        assertThat(cooled.path("lastLoad").path("keys").asLong()).as("the first rebuild ran").isPositive();
    }

    @Test
    void aFailedLoadShowsOverHttpWithoutTheDatabasesErrorText(CapturedOutput output) {
        assertThat(new TestHttp(port).post("/actuator/bloomguard/broken").getStatusCode().value()).isEqualTo(200);

        JsonNode broken = poll(() -> get("/actuator/bloomguard/broken"), node -> node.has("lastFailure"));

        assertThat(broken.path("lastFailure").path("reason").asText()).isEqualTo(BloomGuardEndpoint.LOAD_FAILED);
        assertThat(broken.path("lastFailure").has("at")).isTrue();
        assertThat(new TestHttp(port).get("/actuator/bloomguard").getBody()).contains("\"broken\"")
                .doesNotContain(ROW_TEXT);
        assertThat(output).as("the log keeps the database's words").contains(ROW_TEXT);
    }

    @Test
    void healthShowsBloomGuardWithPerFilterDetailsWithoutTakingTheApplicationDown() {
        registry.filter("loaded").load(LongStream.rangeClosed(1, LOADED_KEYS).boxed());
        poll(() -> get("/actuator/bloomguard").path("filters").path("loaded"),
                node -> "READY".equals(node.path("state").asText()));

        ResponseEntity<String> response = new TestHttp(port).get("/actuator/health");

        assertThat(response.getStatusCode().value()).isEqualTo(200);
        assertThat(TestHttp.json(response.getBody()).path("status").asText()).isEqualTo("UP");
        JsonNode bloomGuard = TestHttp.json(response.getBody()).path("components").path("bloomGuard");
        assertThat(bloomGuard.path("status").asText()).as("a never-loaded filter is bypassed, not down")
                .isEqualTo("UNKNOWN");
        JsonNode loaded = bloomGuard.path("details").path("loaded");
        assertThat(loaded.path("state").asText()).isEqualTo("READY");
        assertThat(loaded.path("fillRatio").asDouble()).isBetween(0.0, 1.0).isPositive();
        assertThat(loaded.path("estimatedFpp").asDouble()).isBetween(0.0, 0.01).isPositive();
        assertThat(loaded.path("circuit").asText()).isEqualTo("CLOSED");
        assertThat(bloomGuard.path("details").path("rebuilt").path("state").asText()).isEqualTo("READY");
        assertThat(bloomGuard.path("details").path("idle").path("state").asText()).isEqualTo("DEGRADED");
    }

    @Test
    void gaugesShowTheRefreshedStatusOfEveryFilter() {
        RedisBloomFilter filter = registry.filter("loaded");
        LoadReport report = filter.load(LongStream.rangeClosed(1, LOADED_KEYS).boxed());
        FilterStatusCache.Snapshot snapshot = poll(() -> statuses.snapshot("loaded").orElseThrow(),
                cached -> !cached.readAt().isBefore(report.finishedAt()));

        assertThat(gauge(BloomGuardMetricNames.FILL_RATIO, "loaded")).isEqualTo(snapshot.status().fillRatio());
        assertThat(gauge(BloomGuardMetricNames.ESTIMATED_FPP, "loaded")).isEqualTo(snapshot.status().estimatedFpp());
        assertThat(gauge(BloomGuardMetricNames.APPROXIMATE_COUNT, "loaded"))
                .isCloseTo(LOADED_KEYS, within(LOADED_KEYS * 0.03));
        assertThat(gauge(BloomGuardMetricNames.APPROXIMATE_COUNT, "rebuilt")).isPositive();
        assertThat(gauge(BloomGuardMetricNames.FILL_RATIO, "idle")).isZero();
    }

    private double gauge(String name, String filter) {
        return meters.get(name).tag(BloomGuardMetricNames.TAG_FILTER, filter).gauge().value();
    }

    private JsonNode get(String path) {
        ResponseEntity<String> response = new TestHttp(port).get(path);
        assertThat(response.getStatusCode().value()).as("GET %s", path).isEqualTo(200);
        return TestHttp.json(response.getBody());
    }

    private static Instant readAt(JsonNode filter) {
        return Instant.parse(filter.path("statusReadAt").asText());
    }

    /** Asks until the answer satisfies {@code until}, for at most {@link #DEADLINE}. */
    private static <T> T poll(Supplier<T> ask, Predicate<T> until) {
        return Await.until("the endpoint's answer", DEADLINE, ask, until);
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {

        @Bean
        @BloomKeySource("streamed")
        KeySource streamedItems(JdbcTemplate jdbc) {
            return RepositoryKeySource.of("actuate_streamed_items",
                    () -> jdbc.queryForStream("SELECT id FROM actuate_streamed_items", (row, number) -> row.getLong(1)));
        }
    }
}
