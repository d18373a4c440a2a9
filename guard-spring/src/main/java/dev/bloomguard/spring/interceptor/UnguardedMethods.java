package dev.bloomguard.spring.interceptor;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import dev.bloomguard.spring.BloomGuard;
import dev.bloomguard.spring.BloomPut;

/**
 * Names, in a WARN at startup, every {@code @BloomGuard}/{@code @BloomPut} on a singleton's
 * method that Spring's proxy can never apply, instead of letting it be silently ignored: a method
 * that is not public (only public methods are guarded), a static method, a final method of a
 * class-based (CGLIB) proxy, a method that no interface of a JDK proxy declares. Calls on
 * {@code this} cannot be seen at all, and cannot be told from here; the README says so.
 */
final class UnguardedMethods {

    private static final Logger log = LoggerFactory.getLogger(UnguardedMethods.class);
    private static final List<Class<? extends Annotation>> ANNOTATIONS = List.of(BloomGuard.class, BloomPut.class);

    private UnguardedMethods() {
    }

    /** Looks at the singletons that exist now; creates none. */
    static void warn(ConfigurableListableBeanFactory beans) {
        for (String name : beans.getSingletonNames()) {
            Object bean = beans.getSingleton(name);
            if (bean == null) {
                continue;
            }
            Class<?> type = AopUtils.getTargetClass(bean);
            if (!AnnotationUtils.isCandidateClass(type, ANNOTATIONS)) {
                continue;
            }
            for (Method method : ReflectionUtils.getUniqueDeclaredMethods(type, ReflectionUtils.USER_DECLARED_METHODS)) {
                String annotation = annotation(method);
                String reason = annotation == null ? null : reason(method, bean, type);
                if (reason != null) {
                    log.warn("{} on {} is never applied: {}", annotation, ClassUtils.getQualifiedMethodName(method, type),
                            reason);
                }
            }
        }
    }

    private static String annotation(Method method) {
        if (AnnotatedElementUtils.hasAnnotation(method, BloomGuard.class)) {
            return "@BloomGuard";
        }
        return AnnotatedElementUtils.hasAnnotation(method, BloomPut.class) ? "@BloomPut" : null;
    }

    private static String reason(Method method, Object bean, Class<?> type) {
        int modifiers = method.getModifiers();
        if (Modifier.isStatic(modifiers)) {
            return "the method is static, and a proxy only sees calls on the bean";
        }
        if (!Modifier.isPublic(modifiers)) {
            return "the method is not public (" + visibility(modifiers)
                    + "), and only public methods are guarded; make it public and call it on the bean";
        }
        if (Modifier.isFinal(modifiers) && AopUtils.isCglibProxy(bean)) {
            return "the method is final, so the class-based (CGLIB) proxy cannot override it; remove final";
        }
        if (AopUtils.isJdkDynamicProxy(bean) && !declaredByAnInterface(method, type)) {
            return "the bean is a JDK interface proxy and no interface of " + type.getName()
                    + " declares the method, so no caller can reach it through the proxy; declare it on the interface,"
                    + " or use class-based proxies (spring.aop.proxy-target-class=true)";
        }
        return null;
    }

    private static String visibility(int modifiers) {
        if (Modifier.isPrivate(modifiers)) {
            return "private";
        }
        return Modifier.isProtected(modifiers) ? "protected" : "package-private";
    }

    /** Also through a generic interface ({@code find(T)} implemented as {@code find(Long)}). */
    private static boolean declaredByAnInterface(Method method, Class<?> type) {
        for (Class<?> face : ClassUtils.getAllInterfacesForClassAsSet(type)) {
            for (Method declared : face.getMethods()) {
                if (declared.getName().equals(method.getName())
                        && AopUtils.getMostSpecificMethod(declared, type).equals(method)) {
                    return true;
                }
            }
        }
        return false;
    }
}
