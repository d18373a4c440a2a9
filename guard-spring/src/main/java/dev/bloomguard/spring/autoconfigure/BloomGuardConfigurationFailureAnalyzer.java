package dev.bloomguard.spring.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.bloomguard.spring.BloomGuardConfigurationException;

/**
 * Explains a startup that failed on a bloom-guard configuration error (a property, a Redis
 * connection setting, an annotation): what is wrong and what to change, in the "APPLICATION
 * FAILED TO START" report instead of a stack trace. Registered in {@code META-INF/spring.factories}.
 */
public final class BloomGuardConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<BloomGuardConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, BloomGuardConfigurationException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.getAction(), cause);
    }
}
