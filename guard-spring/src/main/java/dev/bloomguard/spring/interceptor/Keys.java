package dev.bloomguard.spring.interceptor;

import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.stream.BaseStream;

import dev.bloomguard.spring.BloomGuardConfigurationException;
import dev.bloomguard.spring.BloomGuardException;

/**
 * What a key expression's value means to the filter: nothing to check (null, an empty
 * {@code Optional}, a batch of only nulls), one key, or a batch ({@code Collection} or array)
 * whose null elements are skipped. A value that is none of these (a {@code Map}, a
 * {@code Stream}, an {@code Iterator}, an {@code Iterable} that is not a {@code Collection})
 * is refused at startup when the declared type of the parameter or result already says so,
 * otherwise at the call, with a {@link BloomGuardException} that names the type, never the
 * value; it is never a rejection.
 *
 * <p>A batch is returned as a {@link List}; a single key is never a {@code List}.
 */
final class Keys {

    private Keys() {
    }

    /**
     * @throws BloomGuardConfigurationException naming {@code where} when {@code key} is a
     *     parameter or {@code #result} whose declared type can never be checked
     */
    static void checkDeclared(KeyExpression key, String text, Method method, String where) {
        Class<?> type = key.declaredType(method);
        if (type == null || type.isPrimitive() || type.isArray() || Collection.class.isAssignableFrom(type)) {
            return;
        }
        String problem = unsupported(type);
        if (problem == null && !type.isInterface() && !Modifier.isAbstract(type.getModifiers()) && type != Object.class
                && !hasOwnToString(type)) {
            problem = "has no toString of its own, so equal keys would hash differently";
        }
        if (problem != null) {
            throw new BloomGuardConfigurationException(where + ": key '" + text + "' is of type " + type.getName()
                    + ", which " + problem + "; use a single key (String, number, UUID, enum), a Collection or an array");
        }
    }

    /**
     * The key to check or add, or null for none.
     *
     * @param annotation {@code @BloomGuard} or {@code @BloomPut}, for error messages, as are {@code method} and {@code filter}
     * @throws BloomGuardException naming the method for a value that is not a key or a batch of keys
     */
    static Object of(Object value, String annotation, String method, String filter) {
        try {
            return of(value);
        }
        catch (UnsupportedKey ex) {
            throw new BloomGuardException(where(annotation, method, filter) + ": " + ex.getMessage());
        }
    }

    private static String where(String annotation, String method, String filter) {
        return annotation + " on " + method + " (filter '" + filter + "')";
    }

    /** A value that is not a key; the message names its type, never the value. */
    private static final class UnsupportedKey extends RuntimeException {

        private static final long serialVersionUID = 1L;

        UnsupportedKey(String message) {
            super(message, null, false, false);
        }
    }

    private static Object of(Object value) {
        Object key = unwrap(value);
        if (key == null) {
            return null;
        }
        if (key instanceof Collection<?> || (key.getClass().isArray() && !(key instanceof byte[]))) {
            List<Object> elements = elements(key);
            return elements.isEmpty() ? null : elements;
        }
        refuseUnsupported(key);
        return key;
    }

    private static List<Object> elements(Object batch) {
        List<Object> elements;
        if (batch instanceof Collection<?> collection) {
            elements = new ArrayList<>(collection.size());
            for (Object element : collection) {
                add(elements, element);
            }
        }
        else {
            int length = Array.getLength(batch);
            elements = new ArrayList<>(length);
            for (int i = 0; i < length; i++) {
                add(elements, Array.get(batch, i));
            }
        }
        return elements;
    }

    private static void add(List<Object> elements, Object element) {
        Object key = unwrap(element);
        if (key == null) {
            return;
        }
        if (key instanceof Collection<?> || (key.getClass().isArray() && !(key instanceof byte[]))) {
            throw new UnsupportedKey("the key is a batch holding a " + key.getClass().getName()
                    + "; a batch's elements must be single keys");
        }
        refuseUnsupported(key);
        elements.add(key);
    }

    private static void refuseUnsupported(Object key) {
        String problem = unsupported(key.getClass());
        if (problem != null) {
            throw new UnsupportedKey("the key is a " + key.getClass().getName() + ", which " + problem
                    + "; use a single key (String, number, UUID, enum), a Collection or an array");
        }
    }

    /** Why values of {@code type} are never keys, or null when they may be. */
    private static String unsupported(Class<?> type) {
        if (Map.class.isAssignableFrom(type)) {
            return "is a Map: neither one key nor a batch of keys";
        }
        if (BaseStream.class.isAssignableFrom(type) || Iterator.class.isAssignableFrom(type)) {
            return "can be read only once, so it cannot be checked as a batch";
        }
        if (Iterable.class.isAssignableFrom(type) && !Collection.class.isAssignableFrom(type)
                && type != Iterable.class) {
            return "is an Iterable but not a Collection, so it is neither clearly one key nor a batch";
        }
        return null;
    }

    private static boolean hasOwnToString(Class<?> type) {
        try {
            return type.getMethod("toString").getDeclaringClass() != Object.class;
        }
        catch (NoSuchMethodException ex) {
            return false;
        }
    }

    /** An unsupported key found by the filter itself ({@code KeyEncoding}): its message names the type, not the value. */
    static BloomGuardException unhashable(IllegalArgumentException cause, String annotation, String method, String filter) {
        return new BloomGuardException(where(annotation, method, filter) + ": the key cannot be hashed: "
                + cause.getMessage(), cause);
    }

    /**
     * The value of an {@code Optional}, {@code OptionalLong}, {@code OptionalInt} or
     * {@code OptionalDouble}, or null when empty: their own text ({@code "OptionalLong[42]"})
     * would hash as a key no row has.
     */
    static Object unwrap(Object value) {
        if (value instanceof Optional<?> optional) {
            return optional.orElse(null);
        }
        if (value instanceof OptionalLong optional) {
            return optional.isPresent() ? optional.getAsLong() : null;
        }
        if (value instanceof OptionalInt optional) {
            return optional.isPresent() ? optional.getAsInt() : null;
        }
        if (value instanceof OptionalDouble optional) {
            return optional.isPresent() ? optional.getAsDouble() : null;
        }
        return value;
    }
}
