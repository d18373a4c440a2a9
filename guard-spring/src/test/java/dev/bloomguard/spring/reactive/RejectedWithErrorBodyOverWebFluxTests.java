package dev.bloomguard.spring.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.stream.LongStream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

import dev.bloomguard.spring.AbstractServedApplicationTests;
import dev.bloomguard.spring.web.BloomGuardRejectedExceptionHandler;
import dev.bloomguard.spring.web.OwnRejectionHandler;

/**
 * In a WebFlux application that leaves problem details off (Spring Boot's default), a rejected
 * call is a 404 like the application's others, from annotated controllers and functional
 * endpoints alike: Spring Boot's standard error body. The message shows because the application
 * asks for messages (Spring Boot 3 reads {@code server.error.*}, 4 {@code spring.web.error.*}); it
 * names neither the filter nor the method. {@link ReactiveGuardTests} is the same application
 * with problem details on.
 */
@SpringBootTest(classes = ReactiveGuardTests.App.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "spring.main.web-application-type=reactive", "server.error.include-message=always",
                "spring.web.error.include-message=always", "bloom-guard.key-prefix=reactive-error-body",
                "bloom-guard.redis-timeout=5s",
                "bloom-guard.filters.thing.expected-insertions=1000",
                "bloom-guard.filters.quiet.expected-insertions=1000",
                "bloom-guard.filters.quiet.on-absent=return-empty",
                "bloom-guard.filters.mirrored.expected-insertions=1000" })
class RejectedWithErrorBodyOverWebFluxTests extends AbstractServedApplicationTests {

    @Autowired
    ReactiveGuardTests.ThingRepository things;

    private WebTestClient http;

    private long absent;

    @BeforeEach
    void loadThings() {
        registry.filter("thing").load(LongStream.rangeClosed(1, 100).boxed());
        absent = ReactiveGuardTests.absentKeys(registry.filter("thing"), 1).get(0);
        http = WebTestClient.bindToServer().baseUrl("http://localhost:" + port).responseTimeout(Duration.ofSeconds(10))
                .build();
    }

    @Test
    void absentKeyIsNotFoundWithTheStandardErrorBodyFromControllersAndFunctionalEndpoints() {
        int before = things.calls();

        for (String path : new String[] { "/things/" + absent, "/routed/things/" + absent }) {
            http.get().uri(path).exchange()
                    .expectStatus().isNotFound()
                    .expectHeader().contentType(MediaType.APPLICATION_JSON)
                    .expectBody()
                    .jsonPath("$.status").isEqualTo(404)
                    .jsonPath("$.error").isEqualTo("Not Found")
                    .jsonPath("$.path").isEqualTo(path)
                    .jsonPath("$.message").isEqualTo(BloomGuardRejectedExceptionHandler.DETAIL)
                    .jsonPath("$.timestamp").exists()
                    .jsonPath("$.detail").doesNotExist()
                    .consumeWith(result -> assertThat(new String(result.getResponseBodyContent()))
                            .doesNotContain("filter").doesNotContain("ThingRepository"));
        }

        assertThat(things.calls()).isEqualTo(before);
    }

    @Test
    void theApplicationsOwnHandlerForRejectionsWins() {
        http.get().uri("/own/things/" + absent).exchange()
                .expectStatus().isEqualTo(OwnRejectionHandler.STATUS)
                .expectBody(String.class).isEqualTo("gone from thing");
    }
}
