package dev.bloomguard.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.stream.LongStream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

import dev.bloomguard.core.Membership;
import dev.bloomguard.spring.AbstractServedApplicationTests;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BloomGuard;
import dev.bloomguard.spring.BootNames;
import dev.bloomguard.spring.TestHttp;
import dev.bloomguard.testsupport.AbsentKeys;
import reactor.core.publisher.Mono;

/**
 * A rejected call reaches an HTTP client as 404 with a problem+json body, over a real server and
 * socket, in an application that renders its errors as problem details.
 * {@link RejectedWithErrorBodyOverHttpTests} is the same application with Spring Boot's standard
 * error body.
 */
@SpringBootTest(classes = RejectedOverHttpTests.App.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "spring.mvc.problemdetails.enabled=true", "bloom-guard.key-prefix=http",
                "bloom-guard.redis-timeout=5s", "bloom-guard.filters.thing.expected-insertions=1000" })
class RejectedOverHttpTests extends AbstractServedApplicationTests {

    @Autowired
    ThingRepository things;

    @BeforeEach
    void loadThings() {
        loadThings(registry);
    }

    /** Things 1 to 100 exist. */
    static void loadThings(BloomFilterRegistry registry) {
        registry.filter("thing").load(LongStream.rangeClosed(1, 100).boxed());
    }

    /** A thing the filter says is definitely absent. */
    static long absentThing(BloomFilterRegistry registry) {
        return AbsentKeys.first(1, LongStream.rangeClosed(1_000, 2_000), id -> registry.filter("thing").check(id) == Membership.ABSENT).get(0);
    }

    @Test
    void presentKeyIsServed() {
        ResponseEntity<String> response = new TestHttp(port).get("/things/42");
        assertThat(response.getStatusCode().value()).isEqualTo(200);
        assertThat(response.getBody()).isEqualTo("thing 42");
    }

    @Test
    void absentKeyIsNotFoundWithProblemDetailAndNeverReachesTheRepository() {
        long absent = absentThing(registry);
        int before = things.calls();
        ResponseEntity<String> response = new TestHttp(port).get("/things/" + absent);
        assertThat(response.getStatusCode().value()).isEqualTo(404);
        assertThat(response.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
        assertThat(response.getBody()).contains("\"status\":404").contains("\"title\":\"Not Found\"")
                .contains("\"detail\":\"The requested resource does not exist.\"").doesNotContain("\"filter\"");
        assertThat(things.calls()).isEqualTo(before);
    }

    public static class ThingRepository {

        private int calls;

        @BloomGuard(filter = "thing", key = "#id")
        public Optional<String> find(String id) {
            calls++;
            return Optional.of("thing " + id);
        }

        public int calls() {
            return calls;
        }
    }

    @RestController
    static class ThingController {

        private final ThingRepository things;

        ThingController(ThingRepository things) {
            this.things = things;
        }

        @GetMapping("/things/{id}")
        String thing(@PathVariable String id) {
            return things.find(id).orElseThrow();
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration(excludeName = { BootNames.DATA_SOURCE_3, BootNames.DATA_SOURCE_4 })
    @Import({ ThingRepository.class, ThingController.class })
    static class App {

        @Bean
        OwnRejectionHandler.OwnThingController ownThingController(ThingRepository things) {
            return new OwnRejectionHandler.OwnThingController(id -> Mono.justOrEmpty(things.find(id)));
        }

        /** A bean method, not an import: an imported class's nested controller would be registered too. */
        @Bean
        OwnRejectionHandler ownRejectionHandler() {
            return new OwnRejectionHandler();
        }
    }
}
