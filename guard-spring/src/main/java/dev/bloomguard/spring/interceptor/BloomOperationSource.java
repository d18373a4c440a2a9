package dev.bloomguard.spring.interceptor;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.Spliterator;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodClassKey;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import dev.bloomguard.spring.BloomGuard;
import dev.bloomguard.spring.BloomGuardConfigurationException;
import dev.bloomguard.spring.BloomPut;

/**
 * Finds {@link BloomGuard} and {@link BloomPut} on a method, its interface declarations and its
 * type, and compiles them into {@link BloomOperations} once per (method, target class), as
 * Spring's cache abstraction does; methods without either are cached as a sentinel.
 *
 * <p>Validation happens here, so it happens when the proxy is created at startup: an unknown
 * filter, a bad key expression, a key whose declared type cannot be a key, a return type the
 * guard cannot handle or {@code return-empty} on a primitive fails the application, naming the method.
 */
public final class BloomOperationSource {

    /** A filter as the annotations need it: does it exist, and what does a rejection return. */
    public interface FilterCatalog {

        /** The filter's on-absent policy, or empty when no such filter is configured. */
        Optional<Boolean> returnsEmpty(String filter);

        /** Whether the filter's admitted calls share one call per method and arguments ({@code single-flight}). */
        default boolean singleFlight(String filter) {
            return false;
        }

        /**
         * With remembered misses on for the filter, the exception types that mean "not found"
         * (possibly none); null when the filter does not remember misses.
         */
        default List<Class<? extends Throwable>> missExceptions(String filter) {
            return null;
        }

        /** Share of the filter's blocked calls the audit looks up again ({@code audit.sample-rate}); 0: none. */
        default double auditSampleRate(String filter) {
            return 0;
        }

        /** How long after the audit asked for a rebuild of the filter before it asks again. */
        default Duration auditRebuildCooldown(String filter) {
            return Duration.ofMinutes(10);
        }

        /**
         * Calls per second of the filter's bypass budget ({@code bypass.max-rate}), or null for the
         * rate learned from its answers.
         */
        default Double bypassMaxRate(String filter) {
            return null;
        }

        /** Whether a call beyond the filter's bypass budget still goes through ({@code bypass.when-exhausted: allow}). */
        default boolean bypassAllowedWhenExhausted(String filter) {
            return false;
        }

        /** Configured filter names, for error messages. */
        Iterable<String> names();
    }

    private static final BloomOperations NONE = new BloomOperations(null, null, ReturnKind.PLAIN);

    private final Map<MethodClassKey, BloomOperations> cache = new ConcurrentHashMap<>(256);
    private final FilterCatalog catalog;
    private final SpelExpressionParser parser = new SpelExpressionParser();
    private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

    FilterCatalog catalog() {
        return catalog;
    }

    public BloomOperationSource(FilterCatalog catalog) {
        this.catalog = catalog;
    }

    /** The operations of {@code method} called on {@code targetClass}, or null when it has none. */
    BloomOperations get(Method method, Class<?> targetClass) {
        if (method.getDeclaringClass() == Object.class || ReflectionUtils.isEqualsMethod(method)
                || ReflectionUtils.isHashCodeMethod(method) || ReflectionUtils.isToStringMethod(method)) {
            return null;
        }
        MethodClassKey key = new MethodClassKey(method, targetClass);
        BloomOperations operations = cache.get(key);
        if (operations == null) {
            operations = compute(method, targetClass);
            cache.put(key, operations);
        }
        return operations == NONE ? null : operations;
    }

    private BloomOperations compute(Method method, Class<?> targetClass) {
        if (!Modifier.isPublic(method.getModifiers())) {
            return NONE;
        }
        Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
        List<Method> candidates = candidates(specific, method, targetClass);
        BloomGuard guard = find(candidates, method, targetClass, BloomGuard.class);
        BloomPut put = find(candidates, method, targetClass, BloomPut.class);
        if (guard == null && put == null) {
            return NONE;
        }
        Method guardDeclaration = declaration(candidates, BloomGuard.class, method);
        Method putDeclaration = declaration(candidates, BloomPut.class, method);
        Method declaration = guard != null ? guardDeclaration : putDeclaration;
        String where = ClassUtils.getQualifiedMethodName(declaration, targetClass);
        ReturnKind returns = ReturnKind.of(declaration, where);
        return new BloomOperations(guard == null ? null : guard(guard, guardDeclaration, where, returns),
                put == null ? null : put(put, putDeclaration, where), returns);
    }

    /**
     * The methods that may declare the annotations, parameter names and return type of
     * {@code method} called on {@code targetClass}, most specific first: the target class's own
     * method, the invoked one, and the declarations of every interface of either, each with the
     * method a bridge stands for. A JDK proxy's class (a Spring Data repository is one) is left
     * out: its methods have neither parameter names nor generics, and which interface's method
     * the proxy hands over (a generic base interface's, or {@code CrudRepository}'s) is chance.
     */
    private static List<Method> candidates(Method specific, Method method, Class<?> targetClass) {
        Set<Method> candidates = new LinkedHashSet<>();
        addCandidate(candidates, specific);
        addCandidate(candidates, method);
        Set<Class<?>> interfaces = new LinkedHashSet<>();
        if (targetClass != null) {
            interfaces.addAll(ClassUtils.getAllInterfacesForClassAsSet(targetClass));
        }
        interfaces.addAll(ClassUtils.getAllInterfacesForClassAsSet(method.getDeclaringClass()));
        for (Class<?> type : interfaces) {
            Method declared = ClassUtils.getMethodIfAvailable(type, method.getName(), method.getParameterTypes());
            if (declared != null) {
                addCandidate(candidates, declared);
            }
        }
        candidates.removeIf(candidate -> Proxy.isProxyClass(candidate.getDeclaringClass()));
        return new ArrayList<>(candidates);
    }

    /**
     * The method a key expression is compiled against: the one that declares the annotation
     * itself, whose parameter names the expression was written with; else the most specific one
     * whose parameter names are known (a type-level annotation); else the first.
     */
    private Method declaration(List<Method> candidates, Class<? extends Annotation> type, Method method) {
        for (Method candidate : candidates) {
            if (MergedAnnotations.from(candidate, SearchStrategy.DIRECT).isPresent(type) && hasNames(candidate)) {
                return candidate;
            }
        }
        for (Method candidate : candidates) {
            if (hasNames(candidate)) {
                return candidate;
            }
        }
        return candidates.isEmpty() ? method : candidates.get(0);
    }

    private boolean hasNames(Method method) {
        return method.getParameterCount() == 0 || parameterNames.getParameterNames(method) != null;
    }

    private static void addCandidate(Set<Method> candidates, Method method) {
        candidates.add(BridgeMethodResolver.findBridgedMethod(method));
        candidates.add(method);
    }

    private BloomOperations.Guard guard(BloomGuard guard, Method method, String where, ReturnKind returns) {
        String at = "@BloomGuard on " + where;
        boolean returnsEmpty = returnsEmpty(guard.filter(), at);
        KeyExpression key = KeyExpression.compile(guard.key(), method, false, at, parser, parameterNames);
        Keys.checkDeclared(key, guard.key(), method, at);
        boolean singleFlight = catalog.singleFlight(guard.filter());
        if (singleFlight && returns.kind() != ReturnKind.Kind.PLAIN) {
            throw new BloomGuardConfigurationException(at + ": filter '" + guard.filter() + "' has single-flight on,"
                    + " which shares blocking calls only, and this method returns " + method.getReturnType().getName()
                    + "; turn bloom-guard.filters." + guard.filter() + ".single-flight off or guard it with another filter");
        }
        Class<?> type = method.getReturnType();
        if (singleFlight && (AutoCloseable.class.isAssignableFrom(type) || Iterator.class.isAssignableFrom(type)
                || Spliterator.class.isAssignableFrom(type))) {
            // One Stream, Iterator or connection-bound resource handed to every caller of a flight: all but
            // one would find it consumed or closed.
            throw new BloomGuardConfigurationException(at + ": filter '" + guard.filter() + "' has single-flight on,"
                    + " which hands one result to every caller, and this method returns " + type.getName()
                    + ", which only one caller can read; turn bloom-guard.filters." + guard.filter()
                    + ".single-flight off or guard it with another filter");
        }
        List<Class<? extends Throwable>> missExceptions = catalog.missExceptions(guard.filter());
        BloomOperations.Misses misses = missExceptions == null ? null
                : new BloomOperations.Misses(scope(method), !returnsNothing(method, returns), missExceptions);
        return new BloomOperations.Guard(guard.filter(), key,
                returnsEmpty ? EmptyResults.forMethod(method, at) : null, where, singleFlight, misses);
    }

    /**
     * The method's name among the filter's lookups, the same on every instance: declaring class,
     * name and parameter types, so that overloads (find(id) and find(id, includeInactive)) do not
     * share their misses.
     */
    private static String scope(Method method) {
        StringBuilder scope = new StringBuilder(method.getDeclaringClass().getName()).append('#')
                .append(method.getName()).append('(');
        Class<?>[] parameters = method.getParameterTypes();
        for (int i = 0; i < parameters.length; i++) {
            scope.append(i == 0 ? "" : ",").append(parameters[i].getName());
        }
        return scope.append(')').toString();
    }

    /**
     * Whether the method's result carries no value whose emptiness could mean "not found":
     * {@code void}, {@code Void}, or a future or publisher of {@code Void}.
     */
    private static boolean returnsNothing(Method method, ReturnKind returns) {
        Class<?> type = method.getReturnType();
        if (type == void.class || type == Void.class) {
            return true;
        }
        if (returns.kind() == ReturnKind.Kind.PLAIN) {
            return false;
        }
        Class<?> value = ResolvableType.forMethodReturnType(method).getGeneric(0).resolve();
        return value == Void.class;
    }

    private BloomOperations.Put put(BloomPut put, Method method, String where) {
        String at = "@BloomPut on " + where;
        returnsEmpty(put.filter(), at);
        KeyExpression key = KeyExpression.compile(put.key(), method, true, at, parser, parameterNames);
        Keys.checkDeclared(key, put.key(), method, at);
        return new BloomOperations.Put(put.filter(), key, where, catalog.singleFlight(put.filter()));
    }

    private boolean returnsEmpty(String filter, String at) {
        return catalog.returnsEmpty(filter)
                .orElseThrow(() -> new BloomGuardConfigurationException(at + ": filter '" + filter
                        + "' is not configured; add it under bloom-guard.filters (configured: "
                        + String.join(", ", catalog.names()) + ")"));
    }

    private static <A extends Annotation> A find(List<Method> candidates, Method method, Class<?> targetClass,
            Class<A> type) {
        for (Method candidate : candidates) {
            A found = AnnotatedElementUtils.findMergedAnnotation(candidate, type);
            if (found != null) {
                return found;
            }
        }
        A found = targetClass == null ? null : AnnotatedElementUtils.findMergedAnnotation(targetClass, type);
        if (found == null) {
            found = AnnotatedElementUtils.findMergedAnnotation(method.getDeclaringClass(), type);
        }
        return found;
    }
}
