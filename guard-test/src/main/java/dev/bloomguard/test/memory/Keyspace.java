package dev.bloomguard.test.memory;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

import dev.bloomguard.core.redis.BitmapStoreException;

/**
 * The keys of an {@link InMemoryBitmapStore}, typed as Redis types them: strings ({@code byte[]}),
 * hashes and lists, each with an optional expiry by the store's clock. What Redis does in one
 * command or one script runs here under one lock ({@link #write}, or {@link #read} for what only
 * reads), so every step is as atomic as in Redis. Empty hashes and lists disappear, as in Redis,
 * and a command on a key of another type fails as Redis's {@code WRONGTYPE} does.
 *
 * <p>The methods other than {@link #read} and {@link #write} must be called inside one of them.
 */
final class Keyspace {

    /** Expired keys are swept every this many writes, so that short-lived marks do not pile up. */
    private static final int SWEEP_EVERY = 1_024;

    private final Map<String, Entry> entries = new HashMap<>();
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final Clock clock;
    private int writes;

    Keyspace(Clock clock) {
        this.clock = clock;
    }

    /** The store's clock, in ms: Redis's {@code TIME} for the scripts' {@code now()}. */
    long now() {
        return clock.millis();
    }

    <T> T read(Supplier<T> step) {
        lock.readLock().lock();
        try {
            return step.get();
        }
        finally {
            lock.readLock().unlock();
        }
    }

    <T> T write(Supplier<T> step) {
        lock.writeLock().lock();
        try {
            if (++writes % SWEEP_EVERY == 0) {
                long now = now();
                entries.values().removeIf(entry -> entry.expired(now));
            }
            return step.get();
        }
        finally {
            lock.writeLock().unlock();
        }
    }

    /** A step's answer as a completed future, or its failure as a failed one: nothing here waits. */
    static <T> CompletableFuture<T> async(Supplier<T> step) {
        try {
            return CompletableFuture.completedFuture(step.get());
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    boolean exists(String key) {
        return entry(key) != null;
    }

    /** {@code GET} as bytes: null when missing. */
    byte[] string(String key) {
        Entry entry = entry(key);
        return entry == null ? null : typed(key, entry, byte[].class);
    }

    /** {@code GET} as text: null when missing. */
    String text(String key) {
        byte[] value = string(key);
        return value == null ? null : new String(value, StandardCharsets.UTF_8);
    }

    /** {@code SET key value}, or with {@code PX ttlMillis} when it is positive; any earlier expiry goes. */
    void set(String key, byte[] value, long ttlMillis) {
        entries.put(key, new Entry(value, ttlMillis > 0 ? now() + ttlMillis : 0));
    }

    void setText(String key, String value, long ttlMillis) {
        set(key, value.getBytes(StandardCharsets.UTF_8), ttlMillis);
    }

    /** {@code STRLEN}. */
    long length(String key) {
        byte[] value = string(key);
        return value == null ? 0 : value.length;
    }

    /** {@code GETBIT} of a string's value: 0 beyond its end or when it is missing (null). */
    static boolean bit(byte[] value, long offset) {
        long index = offset >>> 3;
        return value != null && index < value.length && (value[(int) index] & (0x80 >>> (offset & 7))) != 0;
    }

    /** {@code SETBIT}: creates the key, or grows it with zeros, as Redis does. */
    void setBit(String key, long offset, boolean set) {
        Entry entry = entry(key);
        byte[] value = entry == null ? new byte[0] : typed(key, entry, byte[].class);
        int index = Math.toIntExact(offset >>> 3);
        if (index >= value.length) {
            value = Arrays.copyOf(value, index + 1);
        }
        int mask = 0x80 >>> (offset & 7);
        value[index] = (byte) (set ? value[index] | mask : value[index] & ~mask);
        if (entry == null) {
            entries.put(key, new Entry(value, 0));
        }
        else {
            entry.value = value;
        }
    }

    /** {@code BITCOUNT} of the whole value. */
    long bitCount(String key) {
        byte[] value = string(key);
        long count = 0;
        if (value != null) {
            for (byte b : value) {
                count += Integer.bitCount(b & 0xff);
            }
        }
        return count;
    }

    /** The hash at {@code key}, to read: empty when missing. */
    Map<String, String> hash(String key) {
        Entry entry = entry(key);
        return entry == null ? Map.of() : typed(key, entry, LinkedHashMap.class);
    }

    /** The hash at {@code key}, to change: created when missing; {@link #dropIfEmpty} after removing fields. */
    @SuppressWarnings("unchecked")
    Map<String, String> hashToWrite(String key) {
        Entry entry = entry(key);
        if (entry == null) {
            entry = new Entry(new LinkedHashMap<String, String>(), 0);
            entries.put(key, entry);
        }
        return typed(key, entry, LinkedHashMap.class);
    }

    /** The list at {@code key}, to read: empty when missing. */
    List<byte[]> list(String key) {
        Entry entry = entry(key);
        return entry == null ? List.of() : typed(key, entry, ArrayList.class);
    }

    /** The list at {@code key}, to change: created when missing; {@link #dropIfEmpty} after removing elements. */
    @SuppressWarnings("unchecked")
    List<byte[]> listToWrite(String key) {
        Entry entry = entry(key);
        if (entry == null) {
            entry = new Entry(new ArrayList<byte[]>(), 0);
            entries.put(key, entry);
        }
        return typed(key, entry, ArrayList.class);
    }

    /** Redis keeps no empty hash or list: the key goes with its last field or element. */
    void dropIfEmpty(String key) {
        Entry entry = entry(key);
        if (entry != null && (entry.value instanceof Map<?, ?> map && map.isEmpty()
                || entry.value instanceof List<?> list && list.isEmpty())) {
            entries.remove(key);
        }
    }

    /** {@code LINDEX}: null beyond either end; a negative index counts from the end. */
    byte[] listIndex(String key, long index) {
        List<byte[]> list = list(key);
        long at = index < 0 ? list.size() + index : index;
        return at < 0 || at >= list.size() ? null : list.get((int) at);
    }

    /** {@code LRANGE key start stop}, inclusive, negative indexes counting from the end. */
    List<byte[]> listRange(String key, long start, long stop) {
        List<byte[]> list = list(key);
        int size = list.size();
        long from = Math.max(0, start < 0 ? size + start : start);
        long to = Math.min(size - 1L, stop < 0 ? size + stop : stop);
        return from > to ? List.of() : List.copyOf(list.subList((int) from, (int) to + 1));
    }

    /** {@code LTRIM key start -1}: drops the first {@code start} elements. */
    void listDropFirst(String key, long start) {
        if (start > 0 && exists(key)) {
            List<byte[]> list = listToWrite(key);
            list.subList(0, (int) Math.min(start, list.size())).clear();
            dropIfEmpty(key);
        }
    }

    void delete(String key) {
        entries.remove(key);
    }

    /** {@code RENAME}: the value and its expiry move, over whatever {@code to} held. */
    void rename(String from, String to) {
        Entry entry = entry(from);
        if (entry == null) {
            throw new BitmapStoreException("ERR no such key: " + from, null);
        }
        entries.remove(from);
        entries.put(to, entry);
    }

    /** {@code PEXPIRE}; false when the key is missing. */
    boolean expire(String key, long ttlMillis) {
        Entry entry = entry(key);
        if (entry == null) {
            return false;
        }
        entry.expiresAt = now() + ttlMillis;
        return true;
    }

    /** {@code PERSIST}. */
    void persist(String key) {
        Entry entry = entry(key);
        if (entry != null) {
            entry.expiresAt = 0;
        }
    }

    /** {@code PTTL}: -2 when missing, -1 without an expiry. */
    long ttl(String key) {
        Entry entry = entry(key);
        if (entry == null) {
            return -2;
        }
        return entry.expiresAt == 0 ? -1 : Math.max(0, entry.expiresAt - now());
    }

    /** The live entry: an expired one reads as missing, as in Redis, until a write or a sweep removes it. */
    private Entry entry(String key) {
        Entry entry = entries.get(key);
        return entry == null || entry.expired(now()) ? null : entry;
    }

    @SuppressWarnings("unchecked")
    private static <T> T typed(String key, Entry entry, Class<?> type) {
        if (!type.isInstance(entry.value)) {
            throw new BitmapStoreException("WRONGTYPE Operation against a key holding the wrong kind of value: " + key,
                    null);
        }
        return (T) entry.value;
    }

    private static final class Entry {

        private Object value;
        /** The clock's ms at which the key expires; 0: never. */
        private long expiresAt;

        Entry(Object value, long expiresAt) {
            this.value = value;
            this.expiresAt = expiresAt;
        }

        boolean expired(long now) {
            return expiresAt != 0 && now >= expiresAt;
        }
    }
}
