package dev.bloomguard.spring.autoconfigure;

import dev.bloomguard.spring.BloomGuardConfigurationException;

/**
 * The starter cannot connect to Redis as configured: no connection to use, or connection
 * settings that cannot work. Always carries its own action, which
 * {@link BloomGuardConfigurationFailureAnalyzer} prints under the startup failure.
 */
public class BloomGuardRedisException extends BloomGuardConfigurationException {

    private static final long serialVersionUID = 1L;

    public BloomGuardRedisException(String description, String action) {
        this(description, action, null);
    }

    public BloomGuardRedisException(String description, String action, Throwable cause) {
        super(description, action, cause);
    }
}
