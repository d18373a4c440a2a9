package dev.bloomguard.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

class ReportSectionsTests {

    private static final String FULL_RUN = """
            # Benchmarks

            ## Targets

            | target | measured | met |
            |---|---|---|
            | one check | 1.05× | yes |
            | under attack: old | 9% | **no** |
            | memory | 1.01× | yes |

            ## Check

            text
            <!-- under-attack -->
            ## Under attack
            old figures
            <!-- /under-attack -->

            Total run time: 900 s.
            ## Hand-written
            kept
            """;

    @Test
    void replacesOnlyTheScenariosSectionAndKeepsWhatFollows() {
        String updated = ReportSections.splice(FULL_RUN, "under-attack",
                "<!-- under-attack -->\n## Under attack\nnew figures\n<!-- /under-attack -->\n");

        assertThat(updated).contains("new figures").doesNotContain("old figures")
                .contains("text\n<!-- under-attack -->").contains("<!-- /under-attack -->\n\nTotal run time: 900 s.")
                .endsWith("## Hand-written\nkept\n");
    }

    @Test
    void putsAMissingSectionBeforeTheTotalRunTime() {
        String withoutSection = "# Benchmarks\n\nsection\n\nTotal run time: 9 s.\n## Hand-written\n";

        String updated = ReportSections.splice(withoutSection, "under-attack", "<!-- under-attack -->\nA\n<!-- /under-attack -->");

        assertThat(updated).isEqualTo(
                "# Benchmarks\n\nsection\n\n<!-- under-attack -->\nA\n<!-- /under-attack -->\n\nTotal run time: 9 s.\n## Hand-written\n");
    }

    @Test
    void replacesTheScenariosTargetRowsInPlaceAndKeepsTheOthers() {
        String updated = ReportSections.targets(FULL_RUN, "under attack",
                List.of(new Target("under attack: a", 1, "1%", true), new Target("under attack: b", 0, "0", true)));

        assertThat(updated).contains("| one check | 1.05× | yes |\n| under attack: a | 1% | yes |\n"
                + "| under attack: b | 0 | yes |\n| memory | 1.01× | yes |\n\n## Check").doesNotContain("old |");
    }

    @Test
    void addsTargetRowsAtTheTablesEndWhenItHasNone() {
        String document = "## Targets\n\n| target | measured | met |\n|---|---|---|\n| one | 1 | yes |\n\n## Next\n";

        String updated = ReportSections.targets(document, "under attack",
                List.of(new Target("under attack: a", 1, "1%", true)));

        assertThat(updated).isEqualTo(
                "## Targets\n\n| target | measured | met |\n|---|---|---|\n| one | 1 | yes |\n| under attack: a | 1% | yes |\n\n## Next\n");
    }
}
