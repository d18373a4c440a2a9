package dev.bloomguard.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SuiteRunsTests {

    private static Target mirror(double ratio) {
        return new Target("mirror at least 50×", ratio, String.format("%.0f×", ratio), ratio >= 50);
    }

    private static Target refused(long count) {
        return new Target("no real key refused", count, count + " refused", count == 0).inEveryRun();
    }

    @Test
    void judgesEachTargetOnItsMedianRunButANeverTargetOnItsWorstRun() {
        String table = SuiteRuns.table(List.of(List.of(mirror(36), refused(0)), List.of(mirror(55), refused(0)),
                List.of(mirror(52), refused(2))));

        assertThat(table).contains("| mirror at least 50× | 52× | 36× · 55× · 52× | 37% | yes (2 of 3) |")
                .contains("| no real key refused | 2 refused | 0 refused · 0 refused · 2 refused | — | **no** (2 of 3) |");
        assertThat(SuiteRuns.table(List.of(List.of(refused(0)), List.of(refused(0)), List.of(refused(0)))))
                .contains("| no real key refused | 0 refused | 0 refused · 0 refused · 0 refused | 0% | yes (3 of 3) |");
    }

    @Test
    void aTargetMetOnlyOnceInThreeRunsIsNotMet() {
        String table = SuiteRuns.table(List.of(List.of(mirror(49)), List.of(mirror(51)), List.of(mirror(48))));

        assertThat(table).contains("| mirror at least 50× | 49× | 49× · 51× · 48× | 6% | **no** (1 of 3) |");
    }

    @Test
    void refusesAnEvenNumberOfRunsAndATargetMissingFromARun() {
        assertThatThrownBy(() -> SuiteRuns.table(List.of(List.of(mirror(50)), List.of(mirror(51)))))
                .hasMessageContaining("number of runs (2) must be odd");
        assertThatThrownBy(() -> SuiteRuns.table(List.of(List.of(mirror(50), refused(0)), List.of(mirror(51)),
                List.of(mirror(52), refused(0))))).hasMessageContaining("\"no real key refused\" is in 2 of 3 runs");
    }

    @Test
    void aRunsTargetsFileReadsBackAsWritten(@TempDir Path directory) throws Exception {
        List<Target> targets = List.of(mirror(49.5), refused(0));

        SuiteRuns.write(directory, targets);

        assertThat(SuiteRuns.read(directory)).isEqualTo(targets);
        assertThat(Files.readAllLines(directory.resolve(SuiteRuns.TARGETS_FILE))).hasSize(2);
    }

    @Test
    void aNewRunKeepsWhatWasWrittenByHandAfterTheLastRun() {
        String previous = "# Benchmarks\n\n## Targets\n\n| a | b | c |\n\n## Check\n\nold\n\nTotal run time: 700 s.\n"
                + "\n## By hand\n\nkept\n";

        assertThat(ReportSections.handWritten(previous)).isEqualTo("\n## By hand\n\nkept\n");
        assertThat(ReportSections.handWritten("# Benchmarks\n\nno total line\n")).isEmpty();
    }

    @Test
    void theTargetsSectionOfTheLastRunIsReplacedByTheTableOfAllRuns() {
        String last = "# Benchmarks\n\nheader\n\n## Targets\n\n| target | measured | met |\n|---|---|---|\n| x | 1 | yes |\n\n"
                + "## Check\n\nfigures\n";

        String document = ReportSections.targetsSection(last, "## Targets\n\nall runs\n\n");

        assertThat(document).isEqualTo("# Benchmarks\n\nheader\n\n## Targets\n\nall runs\n\n## Check\n\nfigures\n");
    }

    @Test
    void aScenarioRunAloneFillsEveryColumnOfATableOfSeveralRuns() {
        String document = SuiteRuns.table(List.of(List.of(mirror(50)), List.of(mirror(51)), List.of(mirror(52))))
                + "## Next\n";

        String updated = ReportSections.targets(document, "no real", List.of(refused(0)));

        assertThat(updated).contains("| no real key refused | 0 refused | 0 refused (this scenario alone) | — | yes (1 of 1) |\n\n## Next");
    }
}
