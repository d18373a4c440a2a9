package dev.bloomguard.core.redis;

import java.time.Duration;
import java.util.BitSet;

/**
 * The few bitmap operations a filter needs from Redis. Every method is one round trip unless it
 * says otherwise; a missing key reads as all zeros, as Redis itself does.
 */
public interface BitmapStore {

    /**
     * Reads the bits at {@code offsets[0 .. count)} of {@code key} with one {@code BITFIELD_RO}.
     *
     * @return the indexes (into {@code offsets}) whose bit is set
     * @throws BitmapStoreException when Redis fails or does not answer within {@code timeout}
     */
    BitSet readBits(String key, long[] offsets, int count, Duration timeout);

    /** Sets the bits at {@code offsets[0 .. count)} of {@code key} (one {@code BITFIELD ... SET} per batch). */
    void setBits(String key, long[] offsets, int count);

    /**
     * Writes {@code bitmap} as the whole value of {@code key}, expiring after {@code expiry}
     * unless {@link #persist} is called: one {@code SET} for the first chunk and
     * {@code SETRANGE} for the rest, so Redis allocates the string once instead of growing it.
     */
    void writeBitmap(String key, byte[] bitmap, Duration expiry);

    /** Removes the expiry {@link #writeBitmap} set. */
    void persist(String key);

    /** Atomically replaces {@code target} with {@code source} ({@code RENAME}). */
    void rename(String source, String target);

    void delete(String key);

    /** Length of the key's value in bytes, 0 when it does not exist. */
    long length(String key);
}
