package dev.bloomguard.spring.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

import dev.bloomguard.spring.AbstractServedApplicationTests;
import dev.bloomguard.spring.web.BloomGuardShedExceptionHandler;

/**
 * In a WebFlux application with Spring Boot's standard error body, a shed call is a 503 with
 * {@code Retry-After}, from annotated controllers and functional endpoints alike. Filter
 * {@code thing} is never loaded here (every check is bypassed, not-ready) and its budget is one
 * call per 1,000 s: the first call goes through, every later one is shed.
 */
@SpringBootTest(classes = ReactiveGuardTests.App.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "spring.main.web-application-type=reactive", "server.error.include-message=always",
                "spring.web.error.include-message=always", "bloom-guard.key-prefix=shed-webflux",
                "bloom-guard.redis-timeout=5s",
                "bloom-guard.filters.thing.expected-insertions=1000",
                "bloom-guard.filters.thing.bypass.max-rate=0.001",
                "bloom-guard.filters.quiet.expected-insertions=1000",
                "bloom-guard.filters.mirrored.expected-insertions=1000" })
class ShedOverWebFluxTests extends AbstractServedApplicationTests {

    @Autowired
    ReactiveGuardTests.ThingRepository things;

    private WebTestClient http;

    @BeforeEach
    void client() {
        http = WebTestClient.bindToServer().baseUrl("http://localhost:" + port).responseTimeout(Duration.ofSeconds(10))
                .build();
    }

    @Test
    void aShedCallIs503WithRetryAfterFromControllersAndFunctionalEndpoints() {
        http.get().uri("/things/1").exchange().expectStatus().isOk();
        int before = things.calls();

        for (String path : new String[] { "/things/2", "/routed/things/3" }) {
            http.get().uri(path).exchange()
                    .expectStatus().isEqualTo(503)
                    .expectHeader().valueEquals(HttpHeaders.RETRY_AFTER, "1")
                    .expectHeader().contentType(MediaType.APPLICATION_JSON)
                    .expectBody()
                    .jsonPath("$.status").isEqualTo(503)
                    .jsonPath("$.message").isEqualTo(BloomGuardShedExceptionHandler.DETAIL)
                    .consumeWith(result -> assertThat(new String(result.getResponseBodyContent()))
                            .doesNotContain("thing'").doesNotContain("ThingRepository"));
        }
        assertThat(things.calls()).as("no shed call ran the method").isEqualTo(before);
    }
}
