package dev.bloomguard.spring.interceptor;

import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import java.util.stream.DoubleStream;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import org.springframework.beans.BeanUtils;
import org.springframework.core.ResolvableType;

import dev.bloomguard.spring.BloomGuardConfigurationException;

/**
 * The empty value a rejected {@code on-absent: return-empty} call returns, chosen once per
 * method from its declared return type; for a {@code CompletableFuture<T>} or
 * {@code CompletionStage<T>}, the empty value of {@code T}, which the future completes with.
 */
final class EmptyResults {

    private EmptyResults() {
    }

    /**
     * @throws BloomGuardConfigurationException naming {@code where} for a primitive return type,
     *     which has no empty value
     */
    static Supplier<Object> forMethod(Method method, String where) {
        Class<?> type = method.getReturnType();
        if (type == CompletableFuture.class || type == CompletionStage.class) {
            return forType(ResolvableType.forMethodReturnType(method).as(CompletionStage.class).getGeneric(0)
                    .resolve(Object.class), where);
        }
        return forType(type, where);
    }

    private static Supplier<Object> forType(Class<?> type, String where) {
        if (type == void.class || type == Void.class) {
            return () -> null;
        }
        if (type.isPrimitive()) {
            throw new BloomGuardConfigurationException(where + ": on-absent is return-empty but the method returns "
                    + type.getName() + ", which has no empty value; return a wrapper, Optional or collection, or use on-absent: throw");
        }
        if (type.isArray()) {
            Object empty = Array.newInstance(type.getComponentType(), 0);
            return () -> empty;
        }
        if (type == Optional.class) {
            return Optional::empty;
        }
        if (type == OptionalInt.class) {
            return OptionalInt::empty;
        }
        if (type == OptionalLong.class) {
            return OptionalLong::empty;
        }
        if (type == OptionalDouble.class) {
            return OptionalDouble::empty;
        }
        if (type == Stream.class) {
            return Stream::empty;
        }
        if (type == IntStream.class) {
            return IntStream::empty;
        }
        if (type == LongStream.class) {
            return LongStream::empty;
        }
        if (type == DoubleStream.class) {
            return DoubleStream::empty;
        }
        if (type.isInterface()) {
            if (NavigableSet.class.isAssignableFrom(type) || type == SortedSet.class) {
                return Collections::emptyNavigableSet;
            }
            if (type.isAssignableFrom(List.class)) {
                return Collections::emptyList;
            }
            if (type.isAssignableFrom(Set.class)) {
                return Collections::emptySet;
            }
            if (NavigableMap.class.isAssignableFrom(type) || type == SortedMap.class) {
                return Collections::emptyNavigableMap;
            }
            if (type.isAssignableFrom(Map.class)) {
                return Collections::emptyMap;
            }
        }
        else if ((Collection.class.isAssignableFrom(type) || Map.class.isAssignableFrom(type))
                && !Modifier.isAbstract(type.getModifiers())) {
            return () -> BeanUtils.instantiateClass(type);
        }
        return () -> null;
    }
}
