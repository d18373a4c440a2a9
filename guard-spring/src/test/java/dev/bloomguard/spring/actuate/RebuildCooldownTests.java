package dev.bloomguard.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class RebuildCooldownTests {

    private long now = 1_000;

    private final RebuildCooldown cooldown = new RebuildCooldown(Duration.ofMinutes(1), () -> now);

    @Test
    void refusesAnotherRebuildOfTheFilterUntilTheCooldownHasPassed() {
        assertThat(cooldown.start("user")).isEmpty();
        cooldown.finished("user");
        now += Duration.ofSeconds(20).toNanos();
        assertThat(cooldown.start("user")).contains(Duration.ofSeconds(40));
        now += Duration.ofSeconds(40).toNanos() - 1;
        assertThat(cooldown.start("user")).as("a refused request does not extend the cooldown")
                .contains(Duration.ofNanos(1));
        now += 1;
        assertThat(cooldown.start("user")).isEmpty();
        assertThat(cooldown.start("user")).contains(Duration.ofMinutes(1));
    }

    @Test
    void holdsWhileTheRebuildRunsAndRunsAgainFromItsEnd() {
        assertThat(cooldown.start("user")).isEmpty();
        now += Duration.ofMinutes(5).toNanos();
        assertThat(cooldown.start("user")).as("a rebuild five cooldowns long still runs")
                .contains(Duration.ofMinutes(1));
        cooldown.finished("user");
        now += Duration.ofSeconds(59).toNanos();
        assertThat(cooldown.start("user")).contains(Duration.ofSeconds(1));
        now += Duration.ofSeconds(1).toNanos();
        assertThat(cooldown.start("user")).isEmpty();
    }

    @Test
    void eachFilterHasItsOwnCooldown() {
        assertThat(cooldown.start("user")).isEmpty();
        assertThat(cooldown.start("order")).isEmpty();
        assertThat(cooldown.start("user")).isPresent();
    }

    @Test
    void aCancelledRebuildLeavesNoCooldown() {
        assertThat(cooldown.start("user")).isEmpty();
        cooldown.cancel("user");
        assertThat(cooldown.start("user")).isEmpty();
    }

    @Test
    void aZeroCooldownRefusesNothing() {
        RebuildCooldown none = new RebuildCooldown(Duration.ZERO, () -> now);
        assertThat(none.start("user")).isEmpty();
        assertThat(none.start("user")).isEmpty();
    }
}
