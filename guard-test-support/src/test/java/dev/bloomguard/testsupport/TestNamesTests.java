package dev.bloomguard.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.RegisterExtension;

class TestNamesTests {

    private static String previous;

    private static String fromExtension;

    @RegisterExtension
    static final BeforeEachCallback NAMES_THE_TEST = context -> fromExtension = TestNames.unique(context);

    @RepeatedTest(2)
    void namesAfterTheTestAndNeverTwice(TestInfo test) {
        String name = TestNames.unique(test);

        assertThat(name).startsWith("namesAfterTheTestAndNeverTwice-").isNotEqualTo(TestNames.unique(test)).isNotEqualTo(previous);
        previous = name;
    }

    @Test
    void anExtensionNamesTheSameTestTheSameWay(TestInfo test) {
        assertThat(fromExtension).startsWith("anExtensionNamesTheSameTestTheSameWay-").isNotEqualTo(TestNames.unique(test));
    }
}
