package dev.bloomguard.core.check;

import java.util.Arrays;
import java.util.BitSet;

import dev.bloomguard.core.Hold;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.NotReadyCause;
import dev.bloomguard.core.context.FilterContext;
import dev.bloomguard.core.mirror.BitmapMirror;

/**
 * One key's probes: its shard, its k offsets there and the ready marker's offset last, as one
 * {@code BITFIELD_RO} reads them; {@code local} is the mirror's answer when it needs no Redis
 * (and then the only field to read).
 *
 * @param sent the filter's {@link Holds} when the check was sent. Read only when the reply
 *     arrives, a reason not to block could have been lifted in between (a load of the own query
 *     that swapped in after Redis read these bits from the other query's bitmap): a clear bit of a
 *     real key, taken for "absent". {@link Verdict} judges the reply by both ends and what lies between.
 */
record Probe(int shard, long[] offsets, Membership local, long sent) {

    /** Answered from memory: no offsets, as nothing is sent. */
    private static final Probe PRESENT_IN_MEMORY = new Probe(-1, null, Membership.PRESENT, 0);

    /**
     * Where a key's offsets are worked out before the mirror looks them up: a hit then allocates
     * nothing. Only ever lent for that lookup; a probe that goes to Redis gets a copy of its own,
     * as its reply may be read on another thread while this one checks its next key.
     */
    private static final ThreadLocal<long[]> OFFSETS = ThreadLocal.withInitial(() -> new long[16]);

    /** Probes {@code key}; reads the filter's holds now, before anything is sent. */
    static Probe of(FilterContext filter, BitmapMirror mirror, Object key, Holds holds) {
        long sent = holds.sent();
        int hashes = filter.geometry().hashes();
        long[] offsets = mirror == null ? new long[hashes + 1] : lent(hashes + 1);
        int shard = filter.place(key, offsets, 0);
        offsets[hashes] = filter.geometry().markerOffset();
        if (mirror == null) {
            return new Probe(shard, offsets, null, sent);
        }
        BitmapMirror.Local found = mirror.lookup(shard, offsets, hashes);
        if (found == BitmapMirror.Local.PRESENT) {
            return PRESENT_IN_MEMORY;
        }
        if (found == BitmapMirror.Local.CLEAR_BIT) {
            Membership fromMemory = Verdict.fromMemory(mirror, shard, offsets, hashes, holds, sent);
            if (fromMemory != null) {
                return new Probe(-1, null, fromMemory, sent);
            }
        }
        return new Probe(shard, Arrays.copyOf(offsets, hashes + 1), null, sent);
    }

    private static long[] lent(int length) {
        long[] offsets = OFFSETS.get();
        if (offsets.length < length) {
            offsets = new long[length];
            OFFSETS.set(offsets);
        }
        return offsets;
    }

    /**
     * Why a reply read {@link Membership#NOT_READY}, if anyone need hear it: its shard's marker
     * clear, or the live bitmap not known to come from this instance's source (which a load of it
     * mends). Null for the other holds, which mend themselves (adds landing, a rewind acted on) and
     * must not set off loads.
     */
    NotReadyCause cause(BitSet reply, Holds holds) {
        if (!reply.get(offsets.length - 1)) {
            return NotReadyCause.INCOMPLETE;
        }
        return holds.heldAtEitherEnd(sent, Hold.FOREIGN_SOURCE) ? NotReadyCause.SUSPENDED : null;
    }

    /** Reads Redis's reply (see {@link Verdict}); a present key's bits go to the mirror. */
    Membership answer(BitSet reply, BitmapMirror mirror, Holds holds) {
        int hashes = offsets.length - 1;
        Membership answer = Verdict.read(reply, hashes, 0, hashes, holds, sent);
        if (answer == Membership.PRESENT && mirror != null) {
            mirror.apply(shard, offsets, 0, hashes);
        }
        return answer;
    }
}
