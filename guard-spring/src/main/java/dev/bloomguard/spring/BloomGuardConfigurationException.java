package dev.bloomguard.spring;

/**
 * A {@code bloom-guard.*} setting, or a {@code @BloomGuard}/{@code @BloomPut} use, that cannot
 * work. Thrown while the application starts, never at the first request; the message names the
 * property or the method, and {@link #getAction()} says what to do about it (the starter's
 * failure analyzer prints both in the "APPLICATION FAILED TO START" report).
 */
public class BloomGuardConfigurationException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private static final String DEFAULT_ACTION = "Correct the bloom-guard.* property or the @BloomGuard/@BloomPut "
            + "declaration named above; docs/configuration.md describes every property.";

    private final String action;

    public BloomGuardConfigurationException(String message) {
        this(message, DEFAULT_ACTION, null);
    }

    public BloomGuardConfigurationException(String message, Throwable cause) {
        this(message, DEFAULT_ACTION, cause);
    }

    /**
     * @param description what is wrong, naming the property or the method
     * @param action what to change so that the application starts
     * @param cause the failure behind it, or {@code null}
     */
    public BloomGuardConfigurationException(String description, String action, Throwable cause) {
        super(description, cause);
        this.action = action;
    }

    /** What to change so that the application starts. */
    public String getAction() {
        return action;
    }
}
