package dev.bloomguard.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.bloomguard.bench.RedisLostFigures.Counts;
import dev.bloomguard.bench.RedisLostFigures.Phase;
import dev.bloomguard.bench.RedisLostFigures.Result;
import dev.bloomguard.bench.RedisLostFigures.Round;

class RedisLostReportTests {

    private static final RedisLostScenario.Settings SETTINGS = new RedisLostScenario.Settings(2, 1_000, 3_000, 5_000, 2, 20, 6);

    @Test
    void aPhaseCountsShedsAndErrorsAgainstTheRealUsersSuccess() {
        Counts before = new Counts(10, 10, 0, 0, 100, 0, 0);
        Counts after = new Counts(110, 60, 30, 20, 5_100, 4_000, 1);

        Phase phase = new Phase(5, 1_000, after.minus(before));

        assertThat(phase.counts()).isEqualTo(new Counts(100, 50, 30, 20, 5_000, 4_000, 1));
        assertThat(phase.realSuccess()).isEqualTo(0.5);
        assertThat(phase.queriesPerSecond()).isEqualTo(200);
        assertThat(phase.attackRequestsPerSecond()).isEqualTo(1_000);
        assertThat(phase.realRequestsPerSecond()).isEqualTo(20);
    }

    @Test
    void aPhaseWithoutRealUsersHasNoSuccessAndAPhaseLastsSomeTime() {
        assertThat(new Phase(1, 0, Counts.NONE).realSuccess()).isZero();
        assertThatIllegalArgumentException().isThrownBy(() -> new Phase(0, 0, Counts.NONE));
    }

    @Test
    void theTableGivesEachConfigurationRedisUpAndStoppedWithMediansAndSummedCounts() {
        String section = report(250).section(true);

        assertThat(section).startsWith("<!-- redis-lost -->\n## Redis lost under attack")
                .endsWith("<!-- /redis-lost -->\n").contains(RedisLostReport.ALONE_COMMAND)
                .contains("| no guard | up | 1,100 [1,000–1,200] | 100.0% [100.0%–100.0%] | ")
                .contains("| guard with a budget (max-rate=200, shed) | stopped | 250 [250–250] | 10.0% [10.0%–10.0%] | ")
                .contains(" | 100 / 900 / 0 | 18,000 / 0 |\n");
    }

    @Test
    void theBudgetTargetHoldsUpToOneAndAHalfTimesMaxRate() {
        assertThat(report(300).targets()).singleElement().satisfies(target -> {
            assertThat(target.name()).startsWith(RedisLostReport.TARGET_PREFIX);
            assertThat(target.measured()).isEqualTo("300/s (1.50× max-rate)");
            assertThat(target.met()).isTrue();
        });
        assertThat(report(301).targets().get(0).met()).isFalse();
    }

    @Test
    void drawsTheChart(@TempDir Path docs) throws Exception {
        report(250).chart(docs);

        assertThat(Files.size(docs.resolve(RedisLostReport.CHART))).isPositive();
    }

    /** Three configurations; the budget's two rounds with Redis stopped both see {@code budgetQueries}/s. */
    private static RedisLostReport report(double budgetQueries) {
        Phase up1 = new Phase(1, 1_000, new Counts(50, 50, 0, 0, 950, 0, 0));
        Phase up2 = new Phase(1, 1_200, new Counts(50, 50, 0, 0, 1_150, 0, 0));
        Phase budgetDown = new Phase(10, (long) (budgetQueries * 10), new Counts(500, 50, 450, 0, 20_000, 9_000, 0));
        List<Result> results = List.of(
                new Result("no guard", "no guard", List.of(new Round(up1, up1), new Round(up2, up2))),
                new Result("guard failing open (when-exhausted=allow)", "fail open",
                        List.of(new Round(up1, up1), new Round(up2, up2))),
                new Result("guard with a budget (max-rate=200, shed)", "budget",
                        List.of(new Round(up1, budgetDown), new Round(up2, budgetDown))));
        return new RedisLostReport(SETTINGS, results);
    }
}
