package dev.bloomguard.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.web.client.RestClient;

import dev.bloomguard.demo.AttackSimulator.Burst;
import dev.bloomguard.demo.AttackSimulator.Status;
import dev.bloomguard.demo.StatsController.Stats;
import dev.bloomguard.spring.BloomFilterRegistry;

/**
 * The demo over real HTTP, with a real redis-server (started by
 * {@link EmbeddedRedisEnvironmentPostProcessor}) and H2 seeded with 20,000 users.
 *
 * <p>The Redis timeout is raised from the demo's 50 ms so that a slow first call on a busy build
 * machine is not counted as {@code bypassed}, which would make the counter deltas below flaky.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "demo.users=20000", "bloom-guard.redis-timeout=2s" })
class DemoApplicationTests {

    private static final int SEEDED = 20_000;

    @Value("${local.server.port}")
    private int port;

    @Autowired
    private BloomFilterRegistry filters;

    @Test
    void findsSeededUsersThroughTheFilterAndTheDatabase() {
        Stats before = stats();

        for (long id : new long[] { 1, 12_345, SEEDED }) {
            ResponseEntity<User> response = http().get("/users/{id}", User.class, id);
            assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
            assertThat(response.getBody()).isEqualTo(new User(id, "User " + id, "user" + id + "@example.com"));
        }

        Stats after = stats();
        assertThat(after.passed() - before.passed()).isEqualTo(3);
        assertThat(after.blocked()).isEqualTo(before.blocked());
        assertThat(after.databaseQueries() - before.databaseQueries()).isEqualTo(3);
    }

    @Test
    void blocksAbsentIdsWithoutQueryingTheDatabase() {
        List<Long> absent = List.of(-1L, 0L, SEEDED + 1_000_000L, 5_000_000L, Long.MAX_VALUE);
        Stats start = stats();

        for (long id : absent) {
            Stats before = stats();
            ResponseEntity<String> response = http().get("/users/{id}", String.class, id);
            Stats after = stats();

            assertThat(response.getStatusCode()).isEqualTo(HttpStatus.NOT_FOUND);
            assertThat(response.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
            assertThat(response.getBody()).contains("\"status\":404");
            assertThat(after.blocked() - before.blocked()).as("blocked count for id %d", id).isEqualTo(1);
            assertThat(after.databaseQueries()).as("database queries for id %d", id).isEqualTo(before.databaseQueries());
        }

        Stats end = stats();
        assertThat(end.blocked() - start.blocked()).isEqualTo(absent.size());
        assertThat(end.databaseQueriesAvoided()).isEqualTo(end.blocked());
        assertThat(end.passed()).isEqualTo(start.passed());
        assertThat(end.bypassed()).isEqualTo(start.bypassed());
    }

    @Test
    void createdUserIsFoundRightAway() {
        ResponseEntity<User> created = http().post("/users", Map.of("name", "Ada", "email", "ada@example.com"),
                User.class);

        assertThat(created.getStatusCode()).isEqualTo(HttpStatus.CREATED);
        User user = created.getBody();
        assertThat(user).isNotNull();
        assertThat(user.id()).isGreaterThan(SEEDED);
        assertThat(created.getHeaders().getLocation()).hasPath("/users/" + user.id());

        ResponseEntity<User> found = http().get("/users/{id}", User.class, user.id());
        assertThat(found.getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat(found.getBody()).isEqualTo(user);
    }

    @Test
    void aFalsePositiveReachesTheDatabaseAndStillAnswers404() {
        long absentButInFilter = 7_777_777L;
        filters.filter(StatsController.FILTER).add(absentButInFilter);
        Stats before = stats();

        ResponseEntity<String> response = http().get("/users/{id}", String.class, absentButInFilter);

        Stats after = stats();
        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.NOT_FOUND);
        assertThat(response.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
        assertThat(after.passed() - before.passed()).isEqualTo(1);
        assertThat(after.blocked()).isEqualTo(before.blocked());
        assertThat(after.databaseQueries() - before.databaseQueries()).isEqualTo(1);
    }

    @Test
    void actuatorMetricShowsTheBlockedCount() {
        http().get("/users/{id}", String.class, -7);
        Stats stats = stats();

        ResponseEntity<Map> metric = http().get("/actuator/metrics/bloomguard.checks?tag=outcome:blocked",
                Map.class);

        assertThat(metric.getStatusCode()).isEqualTo(HttpStatus.OK);
        List<?> measurements = (List<?>) metric.getBody().get("measurements");
        assertThat(measurements).hasSize(1);
        Map<?, ?> count = (Map<?, ?>) measurements.get(0);
        assertThat(count.get("statistic")).isEqualTo("COUNT");
        assertThat(((Number) count.get("value")).longValue()).isEqualTo(stats.blocked()).isPositive();
    }

    @Test
    void attackRefusesBadInputWithA400NamingTheField() {
        Map<String, String> plan = Map.of("rate", "5000", "seconds", "3", "mix", "absent", "guard", "on");
        Status before = attack();

        ResponseEntity<Map> tooFast = http().postForm("/attack", plan, Map.class);
        ResponseEntity<Map> noMix = http().postForm("/attack", Map.of("rate", "10", "seconds", "3", "guard", "on"),
                Map.class);

        assertThat(tooFast.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
        assertThat(tooFast.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
        assertThat(tooFast.getBody().get("detail")).isEqualTo("rate (5000) must be from 1 to 2000");
        assertThat(noMix.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
        assertThat(noMix.getBody().get("detail")).isEqualTo("mix is required: one of absent, mixed, false-positive");
        assertThat(attack()).as("nothing started").isEqualTo(before);
    }

    @Test
    void aSecondAttackWaitsForTheFirstWhichStopsOnRequest() {
        ResponseEntity<Burst> first = http().postForm("/attack",
                Map.of("rate", "5", "seconds", "30", "mix", "absent", "guard", "on"), Burst.class);
        ResponseEntity<Map> second = http().postForm("/attack",
                Map.of("rate", "5", "seconds", "1", "mix", "absent", "guard", "off"), Map.class);
        ResponseEntity<Status> stop = http().delete("/attack", Status.class);

        assertThat(first.getStatusCode()).isEqualTo(HttpStatus.ACCEPTED);
        assertThat(first.getBody().state()).isEqualTo("running");
        assertThat(second.getStatusCode()).isEqualTo(HttpStatus.CONFLICT);
        assertThat(second.getBody().get("detail")).isEqualTo("An attack is already running; stop it first");
        assertThat(stop.getStatusCode()).isEqualTo(HttpStatus.OK);
        Burst stopped = finishedBurst();
        assertThat(stopped.state()).isEqualTo("stopped");
        assertThat(stopped.lookups()).isLessThan(5 * 30);
    }

    @Test
    void aFalsePositiveBurstReachesTheDatabaseOnEveryLookup() {
        long planted = AttackSimulator.ABSENT_IDS_FROM + 3;
        filters.filter(StatsController.FILTER).add(planted);

        ResponseEntity<Burst> started = http().postForm("/attack",
                Map.of("rate", "100", "seconds", "1", "mix", "false-positive", "guard", "on"), Burst.class);

        assertThat(started.getStatusCode()).isEqualTo(HttpStatus.ACCEPTED);
        Burst burst = finishedBurst();
        assertThat(burst.falsePositiveId()).as("the first absent id the filter lets through")
                .isBetween(AttackSimulator.ABSENT_IDS_FROM, planted);
        assertThat(burst.lookups()).isPositive();
        assertThat(burst.rejected()).isZero();
        assertThat(burst.notFound()).isEqualTo(burst.lookups());
        assertThat(burst.databaseQueries()).isEqualTo(burst.lookups());
    }

    @Test
    void aMixedBurstQueriesTheDatabaseOnlyForIdsThatPass() {
        ResponseEntity<Burst> started = http().postForm("/attack",
                Map.of("rate", "200", "seconds", "1", "mix", "mixed", "guard", "on"), Burst.class);

        assertThat(started.getStatusCode()).isEqualTo(HttpStatus.ACCEPTED);
        Burst burst = finishedBurst();
        assertThat(burst.found()).as("real ids").isPositive();
        assertThat(burst.rejected()).as("absent ids").isPositive();
        assertThat(burst.failed()).isZero();
        assertThat(burst.found() + burst.notFound() + burst.rejected()).isEqualTo(burst.lookups());
        assertThat(burst.databaseQueries()).isEqualTo(burst.found() + burst.notFound());
    }

    @Test
    void theRebuildIsNotOfferedWhileTheEndpointIsReadOnly() {
        ResponseEntity<Void> options = http().options("/actuator/bloomguard/user");

        assertThat(options.getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat(options.getHeaders().getAllow()).contains(HttpMethod.GET).doesNotContain(HttpMethod.POST);
    }

    @Test
    void servesTheIndexPageAndHealth() {
        assertThat(http().get("/", String.class).getBody()).contains("/users/-1", "/stats",
                "/actuator/metrics/bloomguard.checks");
        ResponseEntity<String> health = http().get("/actuator/health", String.class);
        assertThat(health.getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat(health.getBody()).contains("\"redis\"", "\"db\"");
    }

    private Http http() {
        return new Http(port);
    }

    /**
     * Plain HTTP to the demo, the same on Spring Boot 3 and 4 (whose TestRestTemplate moved):
     * Spring's RestClient, every status returned rather than thrown.
     */
    private static final class Http {

        private final RestClient client;

        Http(int port) {
            this.client = RestClient.builder().baseUrl("http://localhost:" + port)
                    .defaultStatusHandler(status -> true, (request, response) -> {
                    })
                    .build();
        }

        <T> ResponseEntity<T> get(String uri, Class<T> type, Object... variables) {
            return client.get().uri(uri, variables).retrieve().toEntity(type);
        }

        <T> ResponseEntity<T> post(String uri, Object body, Class<T> type) {
            return client.post().uri(uri).contentType(MediaType.APPLICATION_JSON).body(body).retrieve().toEntity(type);
        }

        /** A POST of the fields as {@code application/x-www-form-urlencoded}, as the dashboard sends them. */
        <T> ResponseEntity<T> postForm(String uri, Map<String, String> fields, Class<T> type) {
            LinkedMultiValueMap<String, String> form = new LinkedMultiValueMap<>();
            fields.forEach(form::add);
            return client.post().uri(uri).contentType(MediaType.APPLICATION_FORM_URLENCODED).body(form).retrieve()
                    .toEntity(type);
        }

        <T> ResponseEntity<T> delete(String uri, Class<T> type) {
            return client.delete().uri(uri).retrieve().toEntity(type);
        }

        ResponseEntity<Void> options(String uri) {
            return client.options().uri(uri).retrieve().toBodilessEntity();
        }
    }

    private Status attack() {
        ResponseEntity<Status> response = http().get("/attack", Status.class);
        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
        return response.getBody();
    }

    /** The current burst once it has ended; bursts here last a second or are stopped. */
    private Burst finishedBurst() {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        Burst burst = attack().current();
        while (burst.endedAt() == null && System.nanoTime() < deadline) {
            sleep(Duration.ofMillis(50));
            burst = attack().current();
        }
        assertThat(burst.endedAt()).as("the burst ended within 20 s: %s", burst).isNotNull();
        return burst;
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    private Stats stats() {
        ResponseEntity<Stats> response = http().get("/stats", Stats.class);
        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
        return response.getBody();
    }
}
