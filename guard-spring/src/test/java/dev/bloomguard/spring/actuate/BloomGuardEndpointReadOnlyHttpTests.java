package dev.bloomguard.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;

import dev.bloomguard.core.LoadReport;
import dev.bloomguard.spring.AbstractServedApplicationTests;
import dev.bloomguard.spring.BootNames;
import dev.bloomguard.spring.TestHttp;

/**
 * Exposing the endpoint exposes its reads only: the rebuild, which makes the database read a
 * whole table, is there once the application grants
 * {@code management.endpoint.bloomguard.access=unrestricted}.
 */
@SpringBootTest(classes = BloomGuardEndpointReadOnlyHttpTests.App.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
                "bloom-guard.key-prefix=actuate-read-only",
                "bloom-guard.redis-timeout=5s",
                "management.endpoints.web.exposure.include=bloomguard",
                "bloom-guard.filters.thing.expected-insertions=1000" })
@DirtiesContext
class BloomGuardEndpointReadOnlyHttpTests extends AbstractServedApplicationTests {

    @Test
    void readsWorkAndTheRebuildIsNotExposedByDefault() {
        LoadReport report = registry.filter("thing").load(LongStream.rangeClosed(1, 100).boxed());

        assertThat(new TestHttp(port).get("/actuator/bloomguard").getStatusCode().value()).isEqualTo(200);
        assertThat(new TestHttp(port).get("/actuator/bloomguard/thing").getBody()).contains("\"READY\"");
        assertThat(new TestHttp(port).post("/actuator/bloomguard/thing").getStatusCode().value())
                .isEqualTo(405);
        assertThat(registry.filter("thing").lastLoad()).contains(report);
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration(excludeName = { BootNames.DATA_SOURCE_3, BootNames.DATA_SOURCE_4 })
    static class App {
    }
}
