package dev.bloomguard.core.hash;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Turns a key of any Java type into the text whose UTF-8 bytes are hashed, so that the same
 * logical key lands on the same bits whether it came from warmup SQL ({@code Long},
 * {@code BigDecimal}, {@code UUID}) or from a controller ({@code String} path variable, {@code long}).
 *
 * <ul>
 *   <li>integers of any type ({@code byte} to {@code BigInteger}) → decimal text: {@code 42};</li>
 *   <li>{@code BigDecimal}, {@code double}, {@code float} → plain text without trailing zeros:
 *       {@code 42.50} → {@code 42.5}, {@code 42.0} → {@code 42} (so a whole decimal matches the
 *       integer); NaN and infinities are rejected;</li>
 *   <li>{@code UUID} → lower-case canonical text;</li>
 *   <li>{@code CharSequence} → as is (no trimming, no case folding);</li>
 *   <li>enum constants → {@link Enum#name()};</li>
 *   <li>{@code byte[]} (a {@code bytea} id) → lower-case hex text;</li>
 *   <li>anything else → its own {@link Object#toString()}: give such types a stable {@code toString}.
 *       A type that only inherits {@code Object}'s (class name and identity hash, different for
 *       every instance) is rejected: hashing it would block every real key.</li>
 * </ul>
 *
 * This is part of the stored format: changing it strands every filter already in Redis.
 */
public final class KeyEncoding {

    private KeyEncoding() {
    }

    /** The canonical text of {@code key}. */
    public static String canonicalText(Object key) {
        if (key == null) {
            throw new IllegalArgumentException("a null key has no canonical form; null keys are never checked or added");
        }
        if (key instanceof CharSequence text) {
            return text.toString();
        }
        if (key instanceof Long || key instanceof Integer || key instanceof Short || key instanceof Byte
                || key instanceof BigInteger || key instanceof AtomicLong || key instanceof AtomicInteger) {
            return key.toString();
        }
        if (key instanceof BigDecimal decimal) {
            return plain(decimal);
        }
        if (key instanceof Double || key instanceof Float) {
            double value = ((Number) key).doubleValue();
            if (Double.isNaN(value) || Double.isInfinite(value)) {
                throw new IllegalArgumentException("a key must be a finite number, got " + key.getClass().getSimpleName());
            }
            return plain(new BigDecimal(key.toString()));
        }
        if (key instanceof UUID uuid) {
            return uuid.toString();
        }
        if (key instanceof Enum<?> constant) {
            return constant.name();
        }
        if (key instanceof byte[] bytes) {
            return HexFormat.of().formatHex(bytes);
        }
        if (!HAS_OWN_TO_STRING.get(key.getClass())) {
            throw new IllegalArgumentException("a key of type " + key.getClass().getName() + " has no toString of its own,"
                    + " so equal keys would hash differently; use a String, number, UUID or enum key, or give the type"
                    + " a stable toString");
        }
        return key.toString();
    }

    /** Whether a class declares or inherits a {@code toString} other than {@code Object}'s; looked up once per class. */
    private static final ClassValue<Boolean> HAS_OWN_TO_STRING = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            try {
                return type.getMethod("toString").getDeclaringClass() != Object.class;
            }
            catch (NoSuchMethodException ex) {
                return false;
            }
        }
    };

    /** The bytes that are hashed: the UTF-8 encoding of {@link #canonicalText(Object)}. */
    public static byte[] canonicalBytes(Object key) {
        return canonicalText(key).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * A 64-bit hash of canonical bytes (the first half of their Murmur3 128), for indexes in
     * memory that only ever lead to asking Redis: not for anything that decides on its own, as
     * Murmur3 collisions can be computed.
     */
    public static long indexHash(byte[] canonicalBytes) {
        return Murmur3.hash(canonicalBytes, canonicalBytes.length, new long[1]);
    }

    private static String plain(BigDecimal decimal) {
        return decimal.signum() == 0 ? "0" : decimal.stripTrailingZeros().toPlainString();
    }
}
