package dev.bloomguard.spring;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import org.junit.jupiter.api.Test;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

import dev.bloomguard.core.Membership;

/**
 * One class answers {@link Membership#ABSENT}, the only answer that blocks a call: the core's
 * {@code check.Verdict}, which reads every reason not to block of the filter ({@code check.Holds})
 * when a check is sent and when its reply is read. Any other class that could name ABSENT could
 * block a key on a path that skips those reasons, which is how each path that blocked a real key
 * so far was opened. So no other main class of the core or the starter reads the constant, nor
 * gets at it through {@code valueOf} or {@code values()} (as a {@code switch} over the enum
 * does): they ask {@link Membership#isAbsent()}.
 */
class VerdictOwnerTests {

    private static final String OWNER = "dev.bloomguard.core.check.Verdict";

    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            // Not DO_NOT_INCLUDE_JARS: in a reactor build past "package", guard-core is its jar.
            .importPackages("dev.bloomguard.core", "dev.bloomguard.spring");

    @Test
    void onlyTheVerdictNamesAbsent() {
        noClasses().that().doNotHaveFullyQualifiedName(OWNER).and().doNotHaveFullyQualifiedName(Membership.class.getName())
                .should().accessField(Membership.class, "ABSENT")
                .because("only " + OWNER + " may answer ABSENT, after every reason not to block")
                .check(MAIN);
    }

    @Test
    void noOtherClassGetsAtAbsentThroughTheEnumsLookups() {
        noClasses().that().doNotHaveFullyQualifiedName(OWNER).and().doNotHaveFullyQualifiedName(Membership.class.getName())
                .should().callMethod(Membership.class, "values")
                .orShould().callMethod(Membership.class, "valueOf", String.class)
                .because("a switch over Membership or a lookup by name reaches ABSENT without the verdict")
                .check(MAIN);
    }

    @Test
    void theRulesSeeTheClassesTheyJudge() {
        // A rule over an empty import passes whatever the code does: show the import holds the
        // owner, the guard's check and the core's checks.
        org.assertj.core.api.Assertions.assertThat(MAIN.contain(OWNER)).as(OWNER).isTrue();
        org.assertj.core.api.Assertions
                .assertThat(MAIN.contain("dev.bloomguard.spring.interceptor.GuardChecks")).isTrue();
        org.assertj.core.api.Assertions.assertThat(MAIN.contain("dev.bloomguard.core.check.FilterChecks")).isTrue();
    }
}
