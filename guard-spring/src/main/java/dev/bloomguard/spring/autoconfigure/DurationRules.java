package dev.bloomguard.spring.autoconfigure;

import java.time.Duration;

import dev.bloomguard.spring.BloomGuardConfigurationException;

/**
 * The bounds a {@code bloom-guard.*} duration must keep for the core to take it: each failure
 * names the property and quotes the value, where the core would fail deeper naming neither.
 */
final class DurationRules {

    private DurationRules() {
    }

    static void requirePositive(String property, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new BloomGuardConfigurationException(property + " (" + value + ") must be positive");
        }
        requireNanos(property, value);
    }

    /**
     * For a duration the core schedules or hands to Redis in whole milliseconds: below
     * {@code millis} it would truncate to a period the scheduler refuses (0) or under the core's
     * minimum, failing deeper with an exception that names no property.
     */
    static void requireAtLeast(String property, Duration value, long millis) {
        if (value == null || value.compareTo(Duration.ofMillis(millis)) < 0) {
            throw new BloomGuardConfigurationException(property + " (" + value + ") must be at least " + millis + " ms");
        }
        requireNanos(property, value);
    }

    /** As {@link #requireAtLeast}, for a duration whose 0 means "none". */
    static void requireZeroOrAtLeast(String property, Duration value, long millis) {
        if (value == null || value.isNegative()) {
            throw new BloomGuardConfigurationException(property + " (" + value + ") must not be negative");
        }
        if (!value.isZero() && value.compareTo(Duration.ofMillis(millis)) < 0) {
            throw new BloomGuardConfigurationException(property + " (" + value + ") must be 0 (no cooldown) or at least "
                    + millis + " ms");
        }
        requireNanos(property, value);
    }

    /**
     * The core keeps its durations as longs of nanoseconds, which hold about 292 years: a longer
     * one (a "never" such as 110000d) would overflow in it with an error naming no property.
     */
    static void requireNanos(String property, Duration value) {
        if (value != null && value.compareTo(Duration.ofNanos(Long.MAX_VALUE)) > 0) {
            throw new BloomGuardConfigurationException(property + " (" + value + ") must be under 292 years");
        }
    }
}
