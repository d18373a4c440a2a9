package dev.bloomguard.spring;

/**
 * A {@code bloom-guard.*} setting, or a {@code @BloomGuard}/{@code @BloomPut} use, that cannot
 * work. Thrown while the application starts, never at the first request; the message names the
 * property or the method.
 */
public class BloomGuardConfigurationException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public BloomGuardConfigurationException(String message) {
        super(message);
    }

    public BloomGuardConfigurationException(String message, Throwable cause) {
        super(message, cause);
    }
}
