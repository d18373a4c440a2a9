package dev.bloomguard.spring.interceptor;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.annotation.AnnotationUtils;

import dev.bloomguard.spring.BloomGuard;
import dev.bloomguard.spring.BloomPut;

/**
 * Matches methods that carry {@code @BloomGuard} or {@code @BloomPut} anywhere in their type
 * hierarchy. The class filter resolves every public method of a class the first time the class
 * is proxied, so a bad key expression, an unknown filter or a primitive {@code return-empty} on
 * any method fails the application's startup, not that method's first call (Spring stops asking
 * the method matcher at a class's first match).
 */
final class BloomGuardPointcut extends StaticMethodMatcherPointcut {

    private static final List<Class<? extends Annotation>> ANNOTATIONS = List.of(BloomGuard.class, BloomPut.class);

    private final BloomOperationSource source;
    private final Map<Class<?>, Boolean> classes = new ConcurrentHashMap<>(64);

    BloomGuardPointcut(BloomOperationSource source) {
        this.source = source;
        setClassFilter(this::matchesClass);
    }

    /**
     * Not {@code computeIfAbsent}: resolving a class's operations may create beans (the filter
     * specifications, on the first call), whose own proxying asks this filter again.
     */
    private boolean matchesClass(Class<?> type) {
        Boolean known = classes.get(type);
        if (known == null) {
            known = hasOperations(type);
            classes.put(type, known);
        }
        return known;
    }

    private boolean hasOperations(Class<?> type) {
        if (!AnnotationUtils.isCandidateClass(type, ANNOTATIONS)) {
            return false;
        }
        boolean any = false;
        for (Method method : type.getMethods()) {
            any |= source.get(method, type) != null;
        }
        return any;
    }

    @Override
    public boolean matches(Method method, Class<?> targetClass) {
        return source.get(method, targetClass) != null;
    }
}
