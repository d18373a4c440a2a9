package dev.bloomguard.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.TestInfo;

class TestNamesTest {

    private static String previous;

    @RepeatedTest(2)
    void namesAfterTheTestAndNeverTwice(TestInfo test) {
        String name = TestNames.unique(test);

        assertThat(name).startsWith("namesAfterTheTestAndNeverTwice-").isNotEqualTo(TestNames.unique(test)).isNotEqualTo(previous);
        previous = name;
    }
}
