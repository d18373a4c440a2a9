package dev.bloomguard.core.check;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.List;

import dev.bloomguard.core.Membership;

/**
 * The one place that says what a reply means. A check reads a key's k bits and its shard's ready
 * marker in one command; the reply is read marker first:
 * <ul>
 * <li>marker clear: the shard is missing or half-written, {@link Membership#NOT_READY};</li>
 * <li>all k bits set: {@link Membership#PRESENT};</li>
 * <li>a bit clear: {@link Membership#ABSENT}, unless blocking was suspended when the check was sent
 * or when the reply came (see {@link #suspendedAbsent}), which lets the key through as
 * {@link Membership#NOT_READY}.</li>
 * </ul>
 * A read that failed is {@link Membership#UNAVAILABLE}; a null key, never checked, is {@link Membership#PRESENT}.
 */
public final class Verdicts {

    private Verdicts() {
    }

    /**
     * @param reply the bits read, in the order they were asked for
     * @param marker index in {@code reply} of the shard's ready marker
     * @param from index of the key's first bit in {@code reply}
     * @param hashes the key's bits, from {@code from}
     * @param suspended whether blocking was suspended when the check was sent or is now
     */
    static Membership read(BitSet reply, int marker, int from, int hashes, boolean suspended) {
        if (!reply.get(marker)) {
            return Membership.NOT_READY;
        }
        if (reply.nextClearBit(from) >= from + hashes) {
            return Membership.PRESENT;
        }
        return suspended ? Membership.NOT_READY : Membership.ABSENT;
    }

    /**
     * Another generation's ABSENT, while this instance suspended blocking (its own query is not
     * loaded yet) when the check was sent or when it came back: let through.
     */
    public static Membership suspendedAbsent(Membership answer, boolean suspended) {
        return answer == Membership.ABSENT && suspended ? Membership.NOT_READY : answer;
    }

    /** {@link #suspendedAbsent(Membership, boolean)} of each answer. */
    public static List<Membership> suspendedAbsent(List<Membership> answers, boolean suspended) {
        if (!suspended) {
            return answers;
        }
        List<Membership> notAbsent = new ArrayList<>(answers.size());
        for (Membership answer : answers) {
            notAbsent.add(suspendedAbsent(answer, true));
        }
        return notAbsent;
    }

    /** NOT_READY for each key, PRESENT for null ones (never checked, so never blocked). */
    public static List<Membership> notReady(Collection<?> keys) {
        List<Membership> answers = new ArrayList<>(keys.size());
        for (Object key : keys) {
            answers.add(key == null ? Membership.PRESENT : Membership.NOT_READY);
        }
        return answers;
    }
}
