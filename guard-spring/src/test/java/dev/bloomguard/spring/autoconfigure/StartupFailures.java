package dev.bloomguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ContextConsumer;

import dev.bloomguard.spring.BloomGuardConfigurationException;

/** Asserts that an application failed to start with a {@link BloomGuardConfigurationException} that says enough. */
public final class StartupFailures {

    private StartupFailures() {
    }

    /** The context failed, and a {@link BloomGuardConfigurationException} behind it contains every fragment. */
    public static ContextConsumer<AssertableApplicationContext> failsWith(String... fragments) {
        return context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            Throwable cause = failure;
            while (cause != null && !(cause instanceof BloomGuardConfigurationException)) {
                cause = cause.getCause();
            }
            assertThat(cause).as("a BloomGuardConfigurationException behind %s", failure).isNotNull();
            assertThat(cause.getMessage()).contains(fragments);
        };
    }
}
