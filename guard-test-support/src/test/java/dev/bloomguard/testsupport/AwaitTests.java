package dev.bloomguard.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

class AwaitTests {

    @Test
    void returnsTheFirstAnswerThatSatisfiesTheCondition() {
        AtomicInteger asked = new AtomicInteger();

        int answer = Await.until("the third answer", Duration.ofSeconds(5), asked::incrementAndGet, n -> n >= 3);

        assertThat(answer).isEqualTo(3);
        assertThat(asked).hasValue(3);
    }

    @Test
    void failsNamingWhatItWaitedForAndTheLastAnswer() {
        assertThatThrownBy(() -> Await.until("a miracle", Duration.ofMillis(100), () -> "nothing yet", "done"::equals))
                .isInstanceOf(AssertionError.class).hasMessageContaining("a miracle").hasMessageContaining("nothing yet");
        assertThatThrownBy(() -> Await.until("never", Duration.ofMillis(50), () -> false))
                .isInstanceOf(AssertionError.class).hasMessageContaining("never");
    }

    @Test
    void asksAtTheIntervalGiven() {
        AtomicInteger asked = new AtomicInteger();
        long started = System.nanoTime();

        Await.until("the third time asked", Duration.ofSeconds(5), Duration.ofMillis(100), () -> asked.incrementAndGet() >= 3);

        assertThat(asked).hasValue(3);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
    }

    @Test
    void aLatchThatDoesNotReachZeroFails() {
        CountDownLatch open = new CountDownLatch(1);
        open.countDown();
        Await.latch(open, Duration.ofSeconds(1));

        assertThatThrownBy(() -> Await.latch(new CountDownLatch(1), Duration.ofMillis(50))).isInstanceOf(AssertionError.class);
    }
}
