package dev.bloomguard.demo;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * One burst of lookups the {@link AttackSimulator} is asked to make: how many per second, for
 * how long, which ids, and whether through the guarded repository.
 *
 * <p>The values come from a web page, so {@link #parse} is the only way in and it refuses
 * anything outside the hard caps with a message naming the field: a burst must stay small enough
 * that the demo (and the machine it runs on) survives it with the guard off.
 *
 * @param rate lookups per second, 1 to {@link #MAX_RATE}
 * @param seconds how long the burst lasts, 1 to {@link #MAX_SECONDS}
 * @param mix which ids are looked up
 * @param guarded true: through {@code UserRepository.findById} and its filter; false: straight to
 *     the same table, as the application would without bloom-guard
 */
record AttackPlan(int rate, int seconds, Mix mix, boolean guarded) {

    /** Lookups per second a burst may ask for. */
    static final int MAX_RATE = 2_000;

    /** Seconds a burst may last. */
    static final int MAX_SECONDS = 30;

    /** Which ids a burst looks up. */
    enum Mix {

        /** Random ids no user has: what a scraper or an attacker sends. */
        ABSENT,

        /** Half ids of existing users, half random absent ids. */
        MIXED,

        /** One absent id the filter lets through (a false positive), again and again. */
        FALSE_POSITIVE;

        private final String tag = name().toLowerCase(Locale.ROOT).replace('_', '-');

        /** The name the page and the JSON use: {@code absent}, {@code mixed}, {@code false-positive}. */
        String tag() {
            return tag;
        }

        static String tags() {
            return Arrays.stream(values()).map(Mix::tag).collect(Collectors.joining(", "));
        }
    }

    /**
     * The plan the page's form describes.
     *
     * @throws IllegalArgumentException naming the first field that is missing or out of range
     */
    static AttackPlan parse(String rate, String seconds, String mix, String guard) {
        return new AttackPlan(whole("rate", rate, MAX_RATE), whole("seconds", seconds, MAX_SECONDS), mix(mix),
                guard(guard));
    }

    private static int whole(String field, String value, int max) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(field + " is required: a whole number from 1 to " + max);
        }
        int parsed;
        try {
            parsed = Integer.parseInt(value.trim());
        }
        catch (NumberFormatException ex) {
            throw new IllegalArgumentException(field + " (" + value + ") must be a whole number from 1 to " + max);
        }
        if (parsed < 1 || parsed > max) {
            throw new IllegalArgumentException(field + " (" + value + ") must be from 1 to " + max);
        }
        return parsed;
    }

    private static Mix mix(String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("mix is required: one of " + Mix.tags());
        }
        for (Mix mix : Mix.values()) {
            if (mix.tag().equals(value.trim())) {
                return mix;
            }
        }
        throw new IllegalArgumentException("mix (" + value + ") must be one of " + Mix.tags());
    }

    private static boolean guard(String value) {
        if ("on".equals(value)) {
            return true;
        }
        if ("off".equals(value)) {
            return false;
        }
        throw new IllegalArgumentException(value == null || value.isBlank() ? "guard is required: on or off"
                : "guard (" + value + ") must be on or off");
    }
}
