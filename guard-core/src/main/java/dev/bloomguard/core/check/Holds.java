package dev.bloomguard.core.check;

import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import dev.bloomguard.core.Hold;

/**
 * Every reason one generation of a filter has, on this instance, not to block ({@link Hold}),
 * and the one question {@link Verdict} asks of them: was any held when a check was sent, is any
 * held now, or was one taken in between? A reply read from Redis was read at some moment between
 * the two; a reason held at either end, or at any time between, may have been true when Redis read
 * the bits, so a clear bit then cannot block.
 *
 * <p>One word holds it all: the reasons held, and above them how many times one was taken. A
 * check reads it once when it is sent ({@link #sent()}) and once when its reply is read; only
 * the same word, with nothing held, lets a clear bit block. Lock-free, one volatile read per check.
 */
public final class Holds {

    private static final int REASON_BITS = 8;
    private static final long REASONS = (1L << REASON_BITS) - 1;

    /** Bits 0-7: the reasons held; above: how many times a reason was taken. */
    private final AtomicLong state = new AtomicLong();

    /** Holds {@code reason} (again, if held already: a check in flight meanwhile cannot block). */
    public void hold(Hold reason) {
        long bit = bit(reason);
        state.updateAndGet(current -> (((current >>> REASON_BITS) + 1) << REASON_BITS) | (current & REASONS) | bit);
    }

    /** Lifts {@code reason}; the others stay held. */
    public void release(Hold reason) {
        long bit = bit(reason);
        state.updateAndGet(current -> current & ~bit);
    }

    /** {@link #hold} when {@code held}, else {@link #release}. */
    public void set(Hold reason, boolean held) {
        if (held) {
            hold(reason);
        }
        else {
            release(reason);
        }
    }

    /** The reasons held now. */
    public Set<Hold> held() {
        long current = state.get();
        Set<Hold> held = EnumSet.noneOf(Hold.class);
        for (Hold reason : Hold.values()) {
            if ((current & bit(reason)) != 0) {
                held.add(reason);
            }
        }
        return held;
    }

    /** Whether any reason is held now. */
    public boolean any() {
        return (state.get() & REASONS) != 0;
    }

    /** Read when a check is sent, before anything goes to Redis; given back to {@link #clearSince}. */
    public long sent() {
        return state.get();
    }

    /** Whether {@code reason} was held when {@code sent} was read, or is now. */
    boolean heldAtEitherEnd(long sent, Hold reason) {
        long bit = bit(reason);
        return (sent & bit) != 0 || (state.get() & bit) != 0;
    }

    /** Whether nothing was held when {@code sent} was read, nor since, nor now. */
    boolean clearSince(long sent) {
        return (sent & REASONS) == 0 && state.get() == sent;
    }

    private static long bit(Hold reason) {
        return 1L << reason.ordinal();
    }
}
