package dev.bloomguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.bloomguard.spring.BootNames;
import dev.bloomguard.spring.RealServers;

/**
 * The README's biggest caveat, said at startup: a filter filled by {@code warmup.sql} with neither
 * a {@code catch-up-sql} nor a {@code rebuild.interval} blocks the rows other writers insert until
 * a load that never comes, and startup names it in a WARN; a filter with either is not named.
 */
@ExtendWith(OutputCaptureExtension.class)
class RowsWrittenElsewhereWarningTests {

    private static final String WARNING = "learns of new rows only through @BloomPut";

    @Test
    void startupNamesEveryFilterThatNothingLoadsAgainAndNoOther(CapturedOutput output) {
        RealServers.execute("DROP TABLE IF EXISTS elsewhere_rows",
                "CREATE TABLE elsewhere_rows (id BIGINT PRIMARY KEY, created TIMESTAMP NOT NULL DEFAULT now())");
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BootNames.redisAutoConfiguration(),
                        BootNames.dataSourceAutoConfiguration(), BloomGuardAutoConfiguration.class))
                .withPropertyValues(RealServers.redisProperties())
                .withPropertyValues("spring.datasource.url=" + RealServers.postgres().jdbcUrl(),
                        "spring.datasource.username=" + RealServers.postgres().username(),
                        "spring.datasource.password=" + RealServers.postgres().password(),
                        "bloom-guard.key-prefix=rows-elsewhere",
                        "bloom-guard.filters.unwatched.expected-insertions=1000",
                        "bloom-guard.filters.unwatched.warmup.sql=SELECT id FROM elsewhere_rows",
                        "bloom-guard.filters.caught-up.expected-insertions=1000",
                        "bloom-guard.filters.caught-up.warmup.sql=SELECT id FROM elsewhere_rows",
                        "bloom-guard.filters.caught-up.warmup.catch-up-sql="
                                + "SELECT id FROM elsewhere_rows WHERE created > :since",
                        "bloom-guard.filters.rebuilt.expected-insertions=1000",
                        "bloom-guard.filters.rebuilt.warmup.sql=SELECT id FROM elsewhere_rows",
                        "bloom-guard.filters.rebuilt.rebuild.interval=6h")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(output.getAll()).as("the startup WARN for the filter nothing loads again")
                            .contains("WARN").contains("Filter 'unwatched' " + WARNING)
                            .contains("bloom-guard.filters.unwatched.warmup.catch-up-sql")
                            .contains("bloom-guard.filters.unwatched.rebuild.interval");
                    assertThat(output.getAll()).as("filters with a catch-up or a scheduled rebuild")
                            .doesNotContain("Filter 'caught-up' " + WARNING)
                            .doesNotContain("Filter 'rebuilt' " + WARNING);
                });
    }
}
