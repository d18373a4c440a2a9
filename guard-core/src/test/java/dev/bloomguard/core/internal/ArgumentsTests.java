package dev.bloomguard.core.internal;

import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNoException;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import com.google.common.base.Preconditions;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.mirror.MirrorSettings;
import dev.bloomguard.core.redis.CircuitBreaker;

/**
 * The checks that replaced Guava's {@code Preconditions.checkArgument} word their messages as it
 * did, so a user's log still quotes the bad value.
 */
class ArgumentsTests {

    @Test
    void messageQuotesEachValueAsGuavaDid() {
        Object[][] cases = {
                { "fpp (%s) must be in (0, 1)", new Object[] { 1.5 } },
                { "minimum calls (%s) must be between 1 and the window (%s)", new Object[] { 0, 100 } },
                { "rollout grace period (%s) must be at least four heartbeats (%s)",
                        new Object[] { Duration.ofSeconds(3), Duration.ofSeconds(1) } },
                { "key-prefix (%s) must not be blank", new Object[] { null } },
                { "filter name must not be blank", new Object[0] },
                { "100% of %s", new Object[] { "nothing" } } };
        for (Object[] example : cases) {
            String template = (String) example[0];
            Object[] values = (Object[]) example[1];
            String guava = guavaMessage(template, values);
            assertThatIllegalArgumentException().isThrownBy(() -> Arguments.checkArgument(false, template, values))
                    .withMessage(guava);
        }
    }

    @Test
    void passesWhenValid() {
        assertThatNoException().isThrownBy(() -> Arguments.checkArgument(true, "fpp (%s) must be in (0, 1)", 1.5));
    }

    @Test
    void engineRejectionsStillNameTheBadValue() {
        assertThatIllegalArgumentException().isThrownBy(() -> FilterGeometry.of(1000, 1.5))
                .withMessage("fpp (1.5) must be in (0, 1)");
        assertThatIllegalArgumentException().isThrownBy(() -> FilterGeometry.of(0, 0.01))
                .withMessage("expected-insertions (0) must be at least 1");
        assertThatIllegalArgumentException().isThrownBy(() -> MirrorSettings.of(1024, Duration.ofSeconds(30)))
                .withMessage("local-mirror.max-memory (1024 bytes) must hold at least one page (65536 bytes)");
        assertThatIllegalArgumentException().isThrownBy(() -> MirrorSettings.of(1 << 20, Duration.ZERO))
                .withMessage("local-mirror.refresh-after (PT0S) must be positive");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new CircuitBreaker.Settings(5, Duration.ofSeconds(1), 100, 200, 0.25,
                        Duration.ofSeconds(1), 0.5))
                .withMessage("minimum calls (200) must be between 1 and the window (100)");
    }

    private static String guavaMessage(String template, Object[] values) {
        try {
            Preconditions.checkArgument(false, template, values);
        }
        catch (IllegalArgumentException ex) {
            return ex.getMessage();
        }
        throw new AssertionError("Guava passed a false check");
    }
}
