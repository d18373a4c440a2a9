package dev.bloomguard.spring.interceptor;

import java.lang.reflect.Method;

import org.springframework.aop.support.StaticMethodMatcherPointcut;

/** Matches methods that carry {@code @BloomGuard} or {@code @BloomPut} anywhere in their type hierarchy. */
final class BloomGuardPointcut extends StaticMethodMatcherPointcut {

    private final BloomOperationSource source;

    BloomGuardPointcut(BloomOperationSource source) {
        this.source = source;
    }

    @Override
    public boolean matches(Method method, Class<?> targetClass) {
        return source.get(method, targetClass) != null;
    }
}
