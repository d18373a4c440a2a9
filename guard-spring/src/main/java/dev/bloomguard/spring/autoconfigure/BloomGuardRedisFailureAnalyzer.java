package dev.bloomguard.spring.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a startup that failed on bloom-guard's Redis connection: what is wrong and what to
 * set, in the "APPLICATION FAILED TO START" report instead of a stack trace. Registered in
 * {@code META-INF/spring.factories}.
 */
public class BloomGuardRedisFailureAnalyzer extends AbstractFailureAnalyzer<BloomGuardRedisException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, BloomGuardRedisException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.getAction(), cause);
    }
}
