package dev.bloomguard.core.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class CircuitBreakerTest {

    @Test
    void opensAfterTheThresholdOfFailuresInARow() {
        CircuitBreaker breaker = CircuitBreaker.create(3, Duration.ofHours(1));
        breaker.onFailure();
        breaker.onFailure();
        assertThat(breaker.tryAcquire()).isTrue();
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
        breaker.onFailure();
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
        assertThat(breaker.tryAcquire()).isFalse();
    }

    @Test
    void aSuccessResetsTheCount() {
        CircuitBreaker breaker = CircuitBreaker.create(3, Duration.ofHours(1));
        breaker.onFailure();
        breaker.onFailure();
        breaker.onSuccess();
        breaker.onFailure();
        breaker.onFailure();
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
    }

    @Test
    void letsOneProbeThroughAfterTheOpenDurationAndClosesOnItsSuccess() throws InterruptedException {
        CircuitBreaker breaker = CircuitBreaker.create(1, Duration.ofMillis(20));
        breaker.onFailure();
        assertThat(breaker.tryAcquire()).isFalse();
        Thread.sleep(40);
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.HALF_OPEN);
        assertThat(breaker.tryAcquire()).as("the probe").isTrue();
        assertThat(breaker.tryAcquire()).as("a second caller while the probe runs").isFalse();
        breaker.onSuccess();
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
        assertThat(breaker.tryAcquire()).isTrue();
    }

    @Test
    void reopensWhenTheProbeFails() throws InterruptedException {
        CircuitBreaker breaker = CircuitBreaker.create(5, Duration.ofMillis(20));
        for (int i = 0; i < 5; i++) {
            breaker.onFailure();
        }
        Thread.sleep(40);
        assertThat(breaker.tryAcquire()).isTrue();
        breaker.onFailure();
        assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
        assertThat(breaker.tryAcquire()).isFalse();
    }

    @Test
    void rejectsSettingsThatCannotWork() {
        assertThatIllegalArgumentException().isThrownBy(() -> CircuitBreaker.create(0, Duration.ofSeconds(1)))
                .withMessageContaining("failure threshold (0)");
        assertThatIllegalArgumentException().isThrownBy(() -> CircuitBreaker.create(1, Duration.ZERO))
                .withMessageContaining("open duration (PT0S)");
    }
}
