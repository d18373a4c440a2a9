package dev.bloomguard.core.upkeep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

class BackoffTests {

    private final Backoff backoff = Backoff.of(Duration.ofSeconds(1), Duration.ofMinutes(1));

    @Test
    void doublesFromTheFirstDelayUpToTheLongest() {
        assertThat(backoff.ceiling(1)).isEqualTo(Duration.ofSeconds(1));
        assertThat(backoff.ceiling(2)).isEqualTo(Duration.ofSeconds(2));
        assertThat(backoff.ceiling(6)).isEqualTo(Duration.ofSeconds(32));
        assertThat(backoff.ceiling(7)).isEqualTo(Duration.ofMinutes(1));
        assertThat(backoff.ceiling(Integer.MAX_VALUE)).isEqualTo(Duration.ofMinutes(1));
    }

    /** Two instances that failed together must not retry together: their delays differ, within the bounds. */
    @Test
    void twoBackoffsOfTheSameAttemptDifferAndStayWithinHalfTheCeilingAndTheCeiling() {
        for (int attempt = 1; attempt <= 10; attempt++) {
            Duration ceiling = backoff.ceiling(attempt);
            Set<Duration> delays = new HashSet<>();
            for (int draw = 0; draw < 1_000; draw++) {
                Duration delay = backoff.delay(attempt);
                assertThat(delay).as("attempt %s", attempt).isGreaterThanOrEqualTo(ceiling.dividedBy(2))
                        .isLessThanOrEqualTo(ceiling);
                delays.add(delay);
            }
            assertThat(delays).as("distinct delays of attempt %s in 1000", attempt).hasSizeGreaterThan(900);
        }
        assertThat(Backoff.of(Duration.ofMillis(100), Duration.ofSeconds(5)).delay(20))
                .as("never beyond the longest delay, the bound retries are documented with")
                .isLessThanOrEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void refusesDelaysThatCannotWork() {
        assertThatIllegalArgumentException().isThrownBy(() -> Backoff.of(Duration.ZERO, Duration.ofSeconds(1)))
                .withMessageContaining("first delay (PT0S)");
        assertThatIllegalArgumentException().isThrownBy(() -> Backoff.of(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .withMessageContaining("longest delay (PT1S)");
        assertThatIllegalArgumentException().isThrownBy(() -> backoff.delay(0)).withMessageContaining("attempt (0)");
    }
}
