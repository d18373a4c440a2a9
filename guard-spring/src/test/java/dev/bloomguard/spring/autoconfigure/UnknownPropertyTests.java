package dev.bloomguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import dev.bloomguard.spring.BloomGuardConfigurationException;
import dev.bloomguard.spring.BootNames;
import dev.bloomguard.spring.RealServers;
import dev.bloomguard.spring.clients.ClientsApp;

/**
 * A misspelt {@code bloom-guard.*} name fails startup, naming the name and the closest valid one,
 * through the starter's failure analyzer: a misspelt {@code warmup.sql} must not leave a filter
 * silently unwarmed.
 */
@ExtendWith(OutputCaptureExtension.class)
class UnknownPropertyTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BootNames.aopAutoConfiguration(), BootNames.redisAutoConfiguration(),
                    BloomGuardAutoConfiguration.class))
            .withPropertyValues(RealServers.redisProperties())
            .withPropertyValues("bloom-guard.key-prefix=unknown-names", "bloom-guard.filters.account.expected-insertions=1000");

    @Test
    void aMisspeltTopLevelNameFailsNamingTheClosestValidOne() {
        assertAnalysis(runner.withPropertyValues("bloom-guard.redis-timout=80ms"),
                "bloom-guard.redis-timout is not a bloom-guard property; did you mean bloom-guard.redis-timeout?",
                "Rename bloom-guard.redis-timout to bloom-guard.redis-timeout");
    }

    @Test
    void aMisspeltFilterLevelNameFailsNamingTheClosestValidOne() {
        assertAnalysis(runner.withPropertyValues("bloom-guard.filters.account.expected-insertion=5000"),
                "bloom-guard.filters.account.expected-insertion is not a bloom-guard property; did you mean "
                        + "bloom-guard.filters.account.expected-insertions?",
                "bloom-guard.filters.account.expected-insertions");
    }

    @Test
    void aMisspeltWarmupNameFailsNamingTheClosestValidOne() {
        assertAnalysis(runner.withPropertyValues("bloom-guard.filters.account.warmup.sqll=SELECT id FROM accounts"),
                "bloom-guard.filters.account.warmup.sqll is not a bloom-guard property; did you mean "
                        + "bloom-guard.filters.account.warmup.sql?",
                "valid names under bloom-guard.filters.account.warmup:", "sql", "catch-up-sql", "fetch-size");
    }

    @Test
    void aMisspeltGroupNameFailsNamingTheClosestValidOne() {
        assertAnalysis(runner.withPropertyValues("bloom-guard.filters.account.warmp.sql=SELECT id FROM accounts"),
                "bloom-guard.filters.account.warmp.sql is not a bloom-guard property; did you mean "
                        + "bloom-guard.filters.account.warmup.sql?",
                "bloom-guard.filters.account.warmup.sql");
    }

    @Test
    void aMisspeltRedisConnectionNameFailsNamingTheClosestValidOne() {
        assertAnalysis(runner.withPropertyValues("bloom-guard.redis.sentinel.mastr=mymaster"),
                "did you mean bloom-guard.redis.sentinel.master?", "bloom-guard.redis.sentinel.master");
    }

    @Test
    void everyMisspeltNameIsListedTogether() {
        runner.withPropertyValues("bloom-guard.redis-timout=80ms", "bloom-guard.filters.account.fp=0.02")
                .run(context -> assertThat(analysis(context.getStartupFailure()).getDescription()).contains(
                        "bloom-guard.redis-timout is not", "bloom-guard.filters.account.fp is not",
                        "did you mean bloom-guard.filters.account.fpp?"));
    }

    @Test
    void aMisspeltEnvironmentVariableFailsToo() {
        assertAnalysis(runner.withInitializer(context -> context.getEnvironment().getPropertySources()
                .addFirst(new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                        Map.of("BLOOMGUARD_FILTERS_ACCOUNT_WARMUP_SQLL", "SELECT id FROM accounts")))),
                "bloomguard.filters.account.warmup.sqll is not a bloom-guard property", "warmup.sql");
    }

    @Test
    void startsWithValidNamesInEveryRelaxedSpelling() {
        runner.withPropertyValues("bloom-guard.redisTimeout=80ms", "bloom-guard.filters[account].fpp=0.02",
                "bloom-guard.filters.account.warmup.fetch_size=500", "bloom-guard.filters.other-name.expected-insertions=10",
                "bloom-guard.circuit-breaker.failure-threshold=3",
                "bloom-guard.filters.account.negative-cache.exceptions[0]=java.util.NoSuchElementException",
                "bloomguard.regenerate=true")
                .withInitializer(context -> context.getEnvironment().getPropertySources()
                        .addFirst(new SystemEnvironmentPropertySource(
                                StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                                Map.of("BLOOMGUARD_FILTERS_ACCOUNT_WARMUP_BLOCKING", "false"))))
                .run(context -> assertThat(context).hasNotFailed());
    }

    /** Not only misspelt names: every configuration error the starter raises gets a description and an action. */
    @Test
    void everyConfigurationErrorHasADescriptionAndAnAction() {
        assertAnalysis(runner.withPropertyValues("bloom-guard.filters.account.fpp=1.5"),
                "bloom-guard.filters.account.fpp", "docs/configuration.md");
    }

    @Test
    void theStartupReportShowsTheDescriptionAndTheAction(CapturedOutput output) {
        String[] arguments = Stream.concat(Arrays.stream(RealServers.redisProperties()),
                Stream.of("bloom-guard.filters.user.expected-insertions=1000",
                        "bloom-guard.filters.user.warmup.sqll=SELECT id FROM users"))
                .map(property -> "--" + property).toArray(String[]::new);
        assertThatThrownBy(() -> new SpringApplicationBuilder(ClientsApp.class).web(WebApplicationType.NONE)
                .run(arguments)).hasRootCauseInstanceOf(BloomGuardConfigurationException.class);
        assertThat(output).contains("APPLICATION FAILED TO START", "Description:",
                "bloom-guard.filters.user.warmup.sqll is not a bloom-guard property; did you mean "
                        + "bloom-guard.filters.user.warmup.sql?",
                "Action:", "Rename bloom-guard.filters.user.warmup.sqll to bloom-guard.filters.user.warmup.sql");
    }

    private static void assertAnalysis(ApplicationContextRunner runner, String description, String... action) {
        runner.run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = analysis(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains(description);
            assertThat(analysis.getAction()).contains(action);
        });
    }

    private static FailureAnalysis analysis(Throwable startupFailure) {
        FailureAnalysis analysis = new BloomGuardConfigurationFailureAnalyzer().analyze(startupFailure);
        assertThat(analysis).as("analysis of %s", startupFailure).isNotNull();
        return analysis;
    }
}
