package dev.bloomguard.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;

import com.fasterxml.jackson.databind.JsonNode;

import dev.bloomguard.spring.AbstractServedApplicationTests;
import dev.bloomguard.spring.TestHttp;

/**
 * In an application that leaves problem details off (Spring Boot's default), a rejected call is
 * a 404 like the application's others: Spring Boot's standard error body, over a real server and
 * socket. The message shows because the application asks for messages (Spring Boot 3 reads
 * {@code server.error.*}, 4 {@code spring.web.error.*}); it names neither the filter nor the method.
 */
@SpringBootTest(classes = RejectedOverHttpTests.App.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "server.error.include-message=always", "spring.web.error.include-message=always",
                "bloom-guard.key-prefix=http-error-body",
                "bloom-guard.redis-timeout=5s", "bloom-guard.filters.thing.expected-insertions=1000" })
class RejectedWithErrorBodyOverHttpTests extends AbstractServedApplicationTests {

    @Autowired
    RejectedOverHttpTests.ThingRepository things;

    @BeforeEach
    void loadThings() {
        RejectedOverHttpTests.loadThings(registry);
    }

    @Test
    void absentKeyIsNotFoundWithTheStandardErrorBodyAndNeverReachesTheRepository() {
        long absent = RejectedOverHttpTests.absentThing(registry);
        int before = things.calls();

        ResponseEntity<String> response = new TestHttp(port).get("/things/" + absent);

        assertThat(response.getStatusCode().value()).isEqualTo(404);
        assertThat(response.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_JSON);
        JsonNode body = TestHttp.json(response.getBody());
        assertThat(body.path("status").asInt()).isEqualTo(404);
        assertThat(body.path("error").asText()).isEqualTo("Not Found");
        assertThat(body.path("path").asText()).isEqualTo("/things/" + absent);
        assertThat(body.path("message").asText()).isEqualTo(BloomGuardRejectedExceptionHandler.DETAIL);
        assertThat(body.has("timestamp")).isTrue();
        assertThat(body.has("detail")).isFalse();
        assertThat(response.getBody()).doesNotContain("filter").doesNotContain("ThingRepository");
        assertThat(things.calls()).isEqualTo(before);
    }

    @Test
    void theApplicationsOwnHandlerForRejectionsWins() {
        ResponseEntity<String> response = new TestHttp(port).get("/own/things/" + RejectedOverHttpTests.absentThing(registry));

        assertThat(response.getStatusCode().value()).isEqualTo(OwnRejectionHandler.STATUS);
        assertThat(response.getBody()).isEqualTo("gone from thing");
    }
}
