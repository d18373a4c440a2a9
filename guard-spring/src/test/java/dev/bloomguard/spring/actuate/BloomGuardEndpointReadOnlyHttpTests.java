package dev.bloomguard.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.client.TestRestTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.bloomguard.core.LoadReport;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.RealServers;

/**
 * Exposing the endpoint exposes the rebuild too, unless the application limits the endpoint to
 * reads with {@code management.endpoint.bloomguard.access=read-only}.
 */
@SpringBootTest(classes = BloomGuardEndpointReadOnlyHttpTests.App.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
                "bloom-guard.key-prefix=actuate-read-only",
                "bloom-guard.redis-timeout=5s",
                "management.endpoints.web.exposure.include=bloomguard",
                "management.endpoint.bloomguard.access=read-only",
                "bloom-guard.filters.thing.expected-insertions=1000" })
@DirtiesContext
class BloomGuardEndpointReadOnlyHttpTests {

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        RealServers.registerRedis(registry);
    }

    @Autowired
    TestRestTemplate http;

    @Autowired
    BloomFilterRegistry registry;

    @Test
    void readsWorkAndTheRebuildIsNotExposed() {
        LoadReport report = registry.filter("thing").load(LongStream.rangeClosed(1, 100).boxed());

        assertThat(http.getForEntity("/actuator/bloomguard", String.class).getStatusCode().value()).isEqualTo(200);
        assertThat(http.getForEntity("/actuator/bloomguard/thing", String.class).getBody()).contains("\"READY\"");
        assertThat(http.postForEntity("/actuator/bloomguard/thing", null, String.class).getStatusCode().value())
                .isEqualTo(405);
        assertThat(registry.filter("thing").lastLoad()).contains(report);
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration(exclude = DataSourceAutoConfiguration.class)
    static class App {
    }
}
