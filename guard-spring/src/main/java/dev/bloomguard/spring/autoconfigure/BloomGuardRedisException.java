package dev.bloomguard.spring.autoconfigure;

import dev.bloomguard.spring.BloomGuardConfigurationException;

/**
 * The starter cannot connect to Redis as configured: no connection to use, or connection
 * settings that cannot work. Carries what a person should do about it, which
 * {@link BloomGuardRedisFailureAnalyzer} prints under the startup failure.
 */
public class BloomGuardRedisException extends BloomGuardConfigurationException {

    private static final long serialVersionUID = 1L;

    private final String action;

    public BloomGuardRedisException(String description, String action) {
        this(description, action, null);
    }

    public BloomGuardRedisException(String description, String action, Throwable cause) {
        super(description, cause);
        this.action = action;
    }

    /** What to change so that the application starts. */
    public String getAction() {
        return action;
    }
}
