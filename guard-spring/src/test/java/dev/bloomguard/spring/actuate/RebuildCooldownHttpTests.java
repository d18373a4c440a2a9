package dev.bloomguard.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ResponseEntity;
import org.springframework.test.annotation.DirtiesContext;

import dev.bloomguard.spring.AbstractServedApplicationTests;
import dev.bloomguard.spring.BloomKeySource;
import dev.bloomguard.spring.BootNames;
import dev.bloomguard.spring.TestHttp;
import dev.bloomguard.spring.warmup.FilterWarmer;
import dev.bloomguard.spring.warmup.KeySource;
import dev.bloomguard.testsupport.Await;

/**
 * The rebuild cooldown holds while the rebuild it let through still runs: a client repeating its
 * POST gets one rebuild per cooldown, never a chain of them queued behind a slow one.
 */
@SpringBootTest(classes = RebuildCooldownHttpTests.App.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
                "bloom-guard.key-prefix=actuate-cooldown",
                "bloom-guard.redis-timeout=5s",
                "bloom-guard.endpoint.rebuild-cooldown=300ms",
                "management.endpoints.web.exposure.include=bloomguard",
                "management.endpoint.bloomguard.access=unrestricted",
                "bloom-guard.filters.slow.expected-insertions=1000",
                "bloom-guard.filters.slow.key-type=integer",
                "bloom-guard.filters.slow.warmup.on-startup=false" })
@DirtiesContext
class RebuildCooldownHttpTests extends AbstractServedApplicationTests {

    private static final Duration COOLDOWN = Duration.ofMillis(300);

    /** The slow key source, held at its gate until the test opens it: a rebuild far longer than the cooldown. */
    static final GatedKeys KEYS = new GatedKeys();

    @Autowired
    FilterWarmer warmer;

    @Test
    void repeatedPostsDuringASlowRebuildAreRefusedAndStartNothingBehindIt() throws Exception {
        TestHttp http = new TestHttp(port);
        ResponseEntity<String> first = http.post("/actuator/bloomguard/slow");
        assertThat(first.getStatusCode().value()).isEqualTo(200);
        assertThat(TestHttp.json(first.getBody()).path("rebuild").asText()).isEqualTo("started");

        List<Integer> statuses = new ArrayList<>();
        long end = System.nanoTime() + COOLDOWN.multipliedBy(8).toNanos();
        while (System.nanoTime() < end) {
            ResponseEntity<String> again = http.post("/actuator/bloomguard/slow");
            statuses.add(again.getStatusCode().value());
            assertThat(TestHttp.json(again.getBody()).path("rebuild").asText()).isEqualTo("cooling-down");
            Thread.sleep(COOLDOWN.toMillis() / 4);
        }
        assertThat(statuses).as("every POST while the rebuild runs, long past its cooldown").hasSizeGreaterThan(10)
                .containsOnly(429);

        KEYS.open();
        Await.until("the rebuild to finish", Duration.ofSeconds(20), () -> warmer.isWarming("slow"),
                warming -> !warming);
        Thread.sleep(COOLDOWN.multipliedBy(3).toMillis());
        assertThat(KEYS.reads()).as("rebuilds that read the key source: the one accepted, nothing chained")
                .isEqualTo(1);

        ResponseEntity<String> later = http.post("/actuator/bloomguard/slow");
        assertThat(later.getStatusCode().value()).as("a cooldown after the rebuild ended").isEqualTo(200);
        assertThat(TestHttp.json(later.getBody()).path("rebuild").asText()).isEqualTo("started");
        Await.until("the second rebuild to finish", Duration.ofSeconds(20), () -> warmer.isWarming("slow"),
                warming -> !warming);
        assertThat(KEYS.reads()).isEqualTo(2);
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration(excludeName = { BootNames.DATA_SOURCE_3, BootNames.DATA_SOURCE_4, BootNames.R2DBC_3,
            BootNames.R2DBC_4 })
    static class App {

        @Bean
        @BloomKeySource("slow")
        KeySource slowKeys() {
            return KEYS.source("slow");
        }
    }
}
