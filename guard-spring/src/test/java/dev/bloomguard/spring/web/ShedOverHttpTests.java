package dev.bloomguard.spring.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

import dev.bloomguard.spring.AbstractServedApplicationTests;
import dev.bloomguard.spring.BloomGuard;
import dev.bloomguard.spring.BloomGuardShedException;
import dev.bloomguard.spring.BootNames;
import dev.bloomguard.spring.TestHttp;
import dev.bloomguard.spring.metrics.BloomGuardMetricNames;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The bypass budget at the edge, over a real server and socket, with filters that are never loaded
 * (so every check is bypassed, reason not-ready): filter {@code tight} has a budget of one call per
 * 1,000 s, so its first call goes through and every later one is shed, whatever the method returns;
 * a shed call reaches the client as 503 with {@code Retry-After}, in Spring Boot's standard error
 * body. Filter {@code learning} has no {@code max-rate}: it has never answered, so it sheds
 * nothing, as a deploy's first warmup must not.
 */
@SpringBootTest(classes = ShedOverHttpTests.App.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "bloom-guard.key-prefix=shed-http", "bloom-guard.redis-timeout=5s",
                "server.error.include-message=always", "spring.web.error.include-message=always",
                "bloom-guard.filters.tight.expected-insertions=1000",
                "bloom-guard.filters.tight.bypass.max-rate=0.001",
                "bloom-guard.filters.quiet.expected-insertions=1000",
                "bloom-guard.filters.quiet.on-absent=return-empty",
                "bloom-guard.filters.quiet.bypass.max-rate=0.001",
                "bloom-guard.filters.learning.expected-insertions=1000" })
class ShedOverHttpTests extends AbstractServedApplicationTests {

    @Autowired
    Things things;

    @Autowired
    MeterRegistry meters;

    @Test
    void overBudgetCallsAreShedWhateverTheMethodReturnsAndAnsweredWith503AndRetryAfter() {
        // The budget's one call: the method runs (the filter is not loaded, so nothing is known).
        assertThat(things.find("1")).contains("thing 1");
        int calls = things.calls();

        assertThatThrownBy(() -> things.find("2")).isInstanceOfSatisfying(BloomGuardShedException.class, shed -> {
            assertThat(shed.getFilter()).isEqualTo("tight");
            assertThat(shed.getReason()).isEqualTo("not-ready");
            assertThat(shed.getRetryAfter()).isEqualTo(Duration.ofSeconds(1));
            assertThat(shed.getMessage()).doesNotContain("\"2\"").contains("Things.find");
        });
        assertThatThrownBy(() -> things.findAsync("3").join()).isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(BloomGuardShedException.class);
        assertThatThrownBy(() -> things.findLater("4").block()).isInstanceOf(BloomGuardShedException.class);
        assertThatThrownBy(() -> things.findAll("5").collectList().block()).isInstanceOf(BloomGuardShedException.class);
        // A shed call says nothing of its key: never an empty result, even under on-absent: return-empty.
        assertThat(things.quietly("6")).as("the quiet filter's one call").contains("thing 6");
        assertThatThrownBy(() -> things.quietly("7")).isInstanceOf(BloomGuardShedException.class);
        assertThat(things.calls()).as("no shed call ran the method").isEqualTo(calls + 1);

        ResponseEntity<String> response = new TestHttp(port).get("/things/8");
        assertThat(response.getStatusCode().value()).isEqualTo(503);
        assertThat(response.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("1");
        assertThat(response.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_JSON);
        assertThat(response.getBody()).contains("\"status\":503").contains(BloomGuardShedExceptionHandler.DETAIL)
                .doesNotContain("tight");
        assertThat(things.calls()).isEqualTo(calls + 1);

        assertThat(checks("tight", "shed", "not-ready")).isEqualTo(5.0);
        assertThat(checks("tight", "bypassed", "not-ready")).isEqualTo(1.0);
        assertThat(checks("quiet", "shed", "not-ready")).isEqualTo(1.0);
    }

    @Test
    void aFilterThatNeverAnsweredShedsNothingWithTheLearnedBudget() {
        int calls = things.calls();
        for (int i = 0; i < 1_000; i++) {
            assertThat(things.learn(Integer.toString(i))).contains("thing " + i);
        }
        assertThat(things.calls()).isEqualTo(calls + 1_000);
        assertThat(checks("learning", "bypassed", "not-ready")).isEqualTo(1_000.0);
        assertThat(checks("learning", "shed", "not-ready")).isZero();
        assertThat(new TestHttp(port).get("/learning/5").getStatusCode().value()).isEqualTo(200);
    }

    @Test
    void theProblemDetailOfAShedCallCarriesRetryAfter() {
        ResponseEntity<ProblemDetail> problem = BloomGuardShedExceptionHandler.problem(
                new BloomGuardShedException("tight", "circuit-open", "Things.find", Duration.ofMillis(1_500)));
        assertThat(problem.getStatusCode().value()).isEqualTo(503);
        assertThat(problem.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).as("whole seconds, rounded up").isEqualTo("2");
        assertThat(problem.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
        assertThat(problem.getBody().getDetail()).isEqualTo(BloomGuardShedExceptionHandler.DETAIL);
    }

    private double checks(String filter, String outcome, String reason) {
        return meters.get(BloomGuardMetricNames.CHECKS).tag("filter", filter).tag("outcome", outcome)
                .tag("reason", reason).counter().count();
    }

    public static class Things {

        private final AtomicInteger calls = new AtomicInteger();

        @BloomGuard(filter = "tight", key = "#id")
        public Optional<String> find(String id) {
            calls.incrementAndGet();
            return Optional.of("thing " + id);
        }

        @BloomGuard(filter = "tight", key = "#id")
        public CompletableFuture<Optional<String>> findAsync(String id) {
            calls.incrementAndGet();
            return CompletableFuture.completedFuture(Optional.of("thing " + id));
        }

        @BloomGuard(filter = "tight", key = "#id")
        public Mono<String> findLater(String id) {
            return Mono.fromSupplier(() -> {
                calls.incrementAndGet();
                return "thing " + id;
            });
        }

        @BloomGuard(filter = "tight", key = "#id")
        public Flux<String> findAll(String id) {
            return Flux.defer(() -> {
                calls.incrementAndGet();
                return Flux.fromIterable(List.of("thing " + id));
            });
        }

        @BloomGuard(filter = "quiet", key = "#id")
        public Optional<String> quietly(String id) {
            calls.incrementAndGet();
            return Optional.of("thing " + id);
        }

        @BloomGuard(filter = "learning", key = "#id")
        public Optional<String> learn(String id) {
            calls.incrementAndGet();
            return Optional.of("thing " + id);
        }

        public int calls() {
            return calls.get();
        }
    }

    @RestController
    static class ThingController {

        private final Things things;

        ThingController(Things things) {
            this.things = things;
        }

        @GetMapping("/things/{id}")
        String thing(@PathVariable String id) {
            return things.find(id).orElseThrow();
        }

        @GetMapping("/learning/{id}")
        String learning(@PathVariable String id) {
            return things.learn(id).orElseThrow();
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration(excludeName = { BootNames.DATA_SOURCE_3, BootNames.DATA_SOURCE_4 })
    @Import({ Things.class, ThingController.class })
    static class App {

        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }
}
