package dev.bloomguard.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AttackPlanTests {

    @ParameterizedTest
    @CsvSource(nullValues = "null", delimiter = '|', textBlock = """
            1    | 1  | absent         | on  | 1    | 1  | ABSENT         | true
            2000 | 30 | mixed          | off | 2000 | 30 | MIXED          | false
            250  | 5  | false-positive | on  | 250  | 5  | FALSE_POSITIVE | true
            """)
    void readsThePagesForm(String rate, String seconds, String mix, String guard, int expectedRate,
            int expectedSeconds, AttackPlan.Mix expectedMix, boolean guarded) {
        assertThat(AttackPlan.parse(rate, seconds, mix, guard))
                .isEqualTo(new AttackPlan(expectedRate, expectedSeconds, expectedMix, guarded));
    }

    @ParameterizedTest
    @CsvSource(nullValues = "null", delimiter = '|', textBlock = """
            null  | 5    | absent  | on    | rate is required: a whole number from 1 to 2000
            0     | 5    | absent  | on    | rate (0) must be from 1 to 2000
            2001  | 5    | absent  | on    | rate (2001) must be from 1 to 2000
            fast  | 5    | absent  | on    | rate (fast) must be a whole number from 1 to 2000
            1.5   | 5    | absent  | on    | rate (1.5) must be a whole number from 1 to 2000
            100   | ''   | absent  | on    | seconds is required: a whole number from 1 to 30
            100   | 31   | absent  | on    | seconds (31) must be from 1 to 30
            100   | -1   | absent  | on    | seconds (-1) must be from 1 to 30
            100   | 5    | null    | on    | mix is required: one of absent, mixed, false-positive
            100   | 5    | random  | on    | mix (random) must be one of absent, mixed, false-positive
            100   | 5    | absent  | null  | guard is required: on or off
            100   | 5    | absent  | true  | guard (true) must be on or off
            """)
    void refusesValuesOutsideTheCapsNamingTheField(String rate, String seconds, String mix, String guard,
            String message) {
        assertThatIllegalArgumentException().isThrownBy(() -> AttackPlan.parse(rate, seconds, mix, guard))
                .withMessage(message);
    }
}
