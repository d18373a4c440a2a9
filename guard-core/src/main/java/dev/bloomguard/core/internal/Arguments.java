package dev.bloomguard.core.internal;

/**
 * Argument checks for the engine's factories and builders, with messages that quote the bad
 * value ("fpp (1.5) must be in (0, 1)"), as Guava's {@code Preconditions.checkArgument} wrote
 * them; here so that Guava stays out of an application's class path.
 *
 * <p>Not part of the API: {@code internal} is public only so that every package of
 * {@code guard-core} can use it, and may change in any release.
 */
public final class Arguments {

    private Arguments() {
    }

    /**
     * Throws an {@link IllegalArgumentException} unless {@code valid}, its message the template with
     * each {@code %s} replaced, in order, by {@link String#valueOf(Object)} of the next value.
     */
    public static void checkArgument(boolean valid, String template, Object... values) {
        if (!valid) {
            throw new IllegalArgumentException(format(template, values));
        }
    }

    /** Only {@code %s}, and no other {@code %} sequence, is a placeholder: a template may hold a plain '%'. */
    static String format(String template, Object... values) {
        StringBuilder message = new StringBuilder(template.length() + 16 * values.length);
        int from = 0;
        int next = 0;
        for (int at = template.indexOf("%s"); at >= 0 && next < values.length; at = template.indexOf("%s", from)) {
            message.append(template, from, at).append(values[next++]);
            from = at + 2;
        }
        return message.append(template, from, template.length()).toString();
    }
}
