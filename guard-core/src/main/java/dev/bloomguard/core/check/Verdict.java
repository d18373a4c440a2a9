package dev.bloomguard.core.check;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.List;

import dev.bloomguard.core.Membership;
import dev.bloomguard.core.mirror.BitmapMirror;

/**
 * The only code that answers {@link Membership#ABSENT}, the one answer that blocks a call
 * ({@code VerdictOwnerTests} keeps it so). Every way to an "absent" comes through here, and each
 * asks the filter's {@link Holds} whether a reason not to block was held when the check was sent,
 * is held now, or was taken in between:
 * <ul>
 * <li>a reply from Redis ({@link #read}): its shard's ready marker clear is
 * {@link Membership#NOT_READY}; all k bits set, {@link Membership#PRESENT}; a clear bit, ABSENT
 * unless held;</li>
 * <li>the local mirror's clear bit ({@link #fromMemory}), only where it trusts its clear bits;</li>
 * <li>another generation's answer during a rolling change ({@link #ofGeneration}), judged again by
 * this instance's holds;</li>
 * <li>a remembered miss ({@link #remembered}), which blocks a key the filter passed;</li>
 * <li>a batch ({@link #ofBatch}), absent only when every key is.</li>
 * </ul>
 * A read that failed is {@link Membership#UNAVAILABLE}; a null key, never checked, is
 * {@link Membership#PRESENT}.
 */
public final class Verdict {

    private Verdict() {
    }

    /**
     * @param reply the bits read, in the order they were asked for
     * @param marker index in {@code reply} of the shard's ready marker
     * @param from index of the key's first bit in {@code reply}
     * @param hashes the key's bits, from {@code from}
     * @param sent {@link Holds#sent()} when the check was sent
     */
    static Membership read(BitSet reply, int marker, int from, int hashes, Holds holds, long sent) {
        if (!reply.get(marker)) {
            return Membership.NOT_READY;
        }
        if (reply.nextClearBit(from) >= from + hashes) {
            return Membership.PRESENT;
        }
        return holds.clearSince(sent) ? Membership.ABSENT : Membership.NOT_READY;
    }

    /**
     * A key whose bit the mirror holds clear: ABSENT from memory when the mirror can prove its
     * page is current ({@link BitmapMirror#trustsAbsent}, the bits and the shard's marker known)
     * and nothing holds the filter; null when Redis must be asked.
     */
    static Membership fromMemory(BitmapMirror mirror, int shard, long[] offsets, int hashes, Holds holds, long sent) {
        return mirror.trustsAbsent() && holds.clearSince(sent) && mirror.knowsClear(shard, offsets, hashes)
                && mirror.knowsSet(shard, offsets[hashes]) ? Membership.ABSENT : null;
    }

    /**
     * Another generation's answer, given during a rolling change to a check of this instance:
     * its ABSENT blocks only if this instance's own holds allow it too.
     */
    public static Membership ofGeneration(Membership answer, Holds holds, long sent) {
        return answer.isAbsent() && !holds.clearSince(sent) ? Membership.NOT_READY : answer;
    }

    /** {@link #ofGeneration(Membership, Holds, long)} of each answer. */
    public static List<Membership> ofGeneration(List<Membership> answers, Holds holds, long sent) {
        if (holds.clearSince(sent)) {
            return answers;
        }
        List<Membership> notAbsent = new ArrayList<>(answers.size());
        for (Membership answer : answers) {
            notAbsent.add(answer.isAbsent() ? Membership.NOT_READY : answer);
        }
        return notAbsent;
    }

    /**
     * Whether a key the filter passed is blocked as a remembered miss: {@code found} in the
     * remembered misses, and nothing holding the filter when it was asked or since (a refused add
     * still being retried could not forget its key's miss).
     */
    public static boolean remembered(boolean found, Holds holds, long sent) {
        return found && holds.clearSince(sent);
    }

    /**
     * A batch's answer: ABSENT only when every key is; otherwise the most permissive answer
     * (PRESENT, then NOT_READY, then UNAVAILABLE). An empty batch is PRESENT.
     */
    public static Membership ofBatch(List<Membership> answers) {
        boolean unavailable = false;
        boolean notReady = false;
        for (Membership answer : answers) {
            if (answer == Membership.PRESENT) {
                return Membership.PRESENT;
            }
            notReady |= answer == Membership.NOT_READY;
            unavailable |= answer == Membership.UNAVAILABLE;
        }
        if (answers.isEmpty() || notReady) {
            return answers.isEmpty() ? Membership.PRESENT : Membership.NOT_READY;
        }
        return unavailable ? Membership.UNAVAILABLE : Membership.ABSENT;
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
