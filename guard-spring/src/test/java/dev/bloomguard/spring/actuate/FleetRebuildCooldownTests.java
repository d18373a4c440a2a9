package dev.bloomguard.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ResponseEntity;

import dev.bloomguard.spring.BloomKeySource;
import dev.bloomguard.spring.BootNames;
import dev.bloomguard.spring.RealServers;
import dev.bloomguard.spring.TestHttp;
import dev.bloomguard.spring.warmup.FilterWarmer;
import dev.bloomguard.spring.warmup.KeySource;
import dev.bloomguard.testsupport.Await;

/**
 * The rebuild cooldown holds for the fleet, not for each instance: behind a load balancer, a
 * client repeating its POST reaches every instance in turn, and each accepted POST is a read of
 * the whole warmup table. Two instances on one Redis: while a rebuild one of them accepted runs,
 * and for the cooldown after it ended, the other starts none, neither at once nor queued behind
 * the first one's load lock.
 */
class FleetRebuildCooldownTests {

    private static final Duration COOLDOWN = Duration.ofSeconds(2);


    /** The key source both instances read, held at its gate until the test opens it. */
    static final GatedKeys KEYS = new GatedKeys();

    @Test
    void aPostToAnotherInstanceStartsNoRebuildWhileOneRunsNorForTheCooldownAfterIt() throws Exception {
        KEYS.reset();
        try (ConfigurableApplicationContext first = start("fleet-turn");
                ConfigurableApplicationContext second = start("fleet-turn")) {
            TestHttp one = http(first);
            TestHttp other = http(second);
            FilterWarmer oneWarmer = first.getBean(FilterWarmer.class);
            FilterWarmer otherWarmer = second.getBean(FilterWarmer.class);

            assertThat(rebuild(one.post("/actuator/bloomguard/fleet"))).isEqualTo("started");
            Await.until("the first instance's rebuild to read its source", Duration.ofSeconds(10), KEYS::reads,
                    reads -> reads == 1);

            List<String> answers = new ArrayList<>();
            long end = System.nanoTime() + COOLDOWN.multipliedBy(2).toNanos();
            while (System.nanoTime() < end) {
                ResponseEntity<String> again = other.post("/actuator/bloomguard/fleet");
                answers.add(again.getStatusCode().value() + " " + rebuild(again));
                Thread.sleep(100);
            }
            assertThat(answers).as("the other instance's answers while the first one's rebuild runs, twice as long"
                    + " as the cooldown: the fleet's turn is kept while it runs").hasSizeGreaterThan(10)
                    .containsOnly("429 cooling-down");

            KEYS.open();
            Await.until("the first rebuild to end", Duration.ofSeconds(20), () -> oneWarmer.isWarming("fleet"),
                    warming -> !warming);
            ResponseEntity<String> rightAfter = other.post("/actuator/bloomguard/fleet");
            assertThat(rightAfter.getStatusCode().value()).as("the other instance, within the cooldown after the"
                    + " rebuild ended: %s", rightAfter.getBody()).isEqualTo(429);
            assertThat(TestHttp.json(rightAfter.getBody()).path("retryAfter").asText()).isNotEmpty();

            Thread.sleep(COOLDOWN.toMillis() / 2);
            assertThat(otherWarmer.isWarming("fleet")).as("a rebuild queued on the other instance").isFalse();
            assertThat(KEYS.reads()).as("rebuilds that read the key source: the one accepted, nothing chained")
                    .isEqualTo(1);

            Thread.sleep(COOLDOWN.toMillis() + 200);
            assertThat(rebuild(other.post("/actuator/bloomguard/fleet"))).as("a cooldown after the rebuild ended")
                    .isEqualTo("started");
            Await.until("the second rebuild to finish", Duration.ofSeconds(20), () -> otherWarmer.isWarming("fleet"),
                    warming -> !warming);
            assertThat(KEYS.reads()).isEqualTo(2);
        }
    }

    /**
     * A load no endpoint started (a warmup, a scheduled rebuild, a call of the warmer) runs in one
     * instance: a POST to another starts nothing, neither now nor queued behind its load lock, and
     * takes no turn, so once that load ended the next POST starts a rebuild at once.
     */
    @Test
    void aPostToAnotherInstanceWhileALoadItDidNotStartRunsThereQueuesNothingAndHoldsNoTurn() throws Exception {
        KEYS.reset();
        try (ConfigurableApplicationContext first = start("fleet-other-load");
                ConfigurableApplicationContext second = start("fleet-other-load")) {
            FilterWarmer oneWarmer = first.getBean(FilterWarmer.class);
            FilterWarmer otherWarmer = second.getBean(FilterWarmer.class);
            TestHttp other = http(second);

            oneWarmer.rebuild("fleet");
            Await.until("the first instance's load to read its source", Duration.ofSeconds(10), KEYS::reads,
                    reads -> reads == 1);
            ResponseEntity<String> during = other.post("/actuator/bloomguard/fleet");
            assertThat(during.getStatusCode().value() + " " + rebuild(during)).as("a POST to the other instance")
                    .isEqualTo("200 already-running");

            KEYS.open();
            Await.until("the load to end", Duration.ofSeconds(20), () -> oneWarmer.isWarming("fleet"),
                    warming -> !warming);
            Thread.sleep(500);
            assertThat(otherWarmer.isWarming("fleet")).as("a rebuild queued on the other instance").isFalse();
            assertThat(KEYS.reads()).as("reads of the key source: the load alone").isEqualTo(1);

            assertThat(rebuild(other.post("/actuator/bloomguard/fleet"))).as("a POST once the load ended")
                    .isEqualTo("started");
            Await.until("that rebuild to finish", Duration.ofSeconds(20), () -> otherWarmer.isWarming("fleet"),
                    warming -> !warming);
            assertThat(KEYS.reads()).isEqualTo(2);
        }
    }

    private static String rebuild(ResponseEntity<String> response) {
        return TestHttp.json(response.getBody()).path("rebuild").asText();
    }

    private static TestHttp http(ConfigurableApplicationContext context) {
        return new TestHttp(Integer.parseInt(context.getEnvironment().getProperty("local.server.port")));
    }

    private static ConfigurableApplicationContext start(String keyPrefix) {
        List<String> properties = new ArrayList<>(List.of(RealServers.redisProperties()));
        properties.addAll(List.of("server.port=0", "bloom-guard.key-prefix=" + keyPrefix,
                "bloom-guard.redis-timeout=5s", "bloom-guard.endpoint.rebuild-cooldown=" + COOLDOWN.toMillis() + "ms",
                "management.endpoints.web.exposure.include=bloomguard",
                "management.endpoint.bloomguard.access=unrestricted",
                "bloom-guard.filters.fleet.expected-insertions=1000", "bloom-guard.filters.fleet.key-type=integer",
                "bloom-guard.filters.fleet.warmup.on-startup=false"));
        return new SpringApplicationBuilder(App.class).web(WebApplicationType.SERVLET)
                .properties(properties.toArray(String[]::new)).run();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration(excludeName = { BootNames.DATA_SOURCE_3, BootNames.DATA_SOURCE_4, BootNames.R2DBC_3,
            BootNames.R2DBC_4 })
    static class App {

        @Bean
        @BloomKeySource("fleet")
        KeySource fleetKeys() {
            return KEYS.source("fleet");
        }
    }
}
