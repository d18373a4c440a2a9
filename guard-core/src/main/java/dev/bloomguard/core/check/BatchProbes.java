package dev.bloomguard.core.check;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collection;
import java.util.List;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.Hold;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.NotReadyCause;
import dev.bloomguard.core.context.FilterContext;
import dev.bloomguard.core.mirror.BitmapMirror;

/**
 * The probes of a batch grouped by shard: one {@code BITFIELD_RO} per shard that holds any of the
 * keys, their k offsets one after another and the shard's ready marker last.
 */
final class BatchProbes {

    private final Collection<?> keys;
    private final int hashes;
    private final int[] shardOf;
    private final int[] slotOfShard;
    private final int[] positionInShard;
    private final boolean allInMirror;
    /** The filter's holds when the batch was sent: see {@link Probe#sent}. */
    private final long sent;
    final List<String> shardKeys = new ArrayList<>();
    final List<long[]> probes = new ArrayList<>();

    BatchProbes(FilterContext filter, BitmapMirror mirror, Collection<?> keys, long sent) {
        this.keys = keys;
        this.sent = sent;
        FilterGeometry geometry = filter.geometry();
        this.hashes = geometry.hashes();
        int shards = geometry.shards();
        List<Object> present = new ArrayList<>(keys.size());
        for (Object key : keys) {
            if (key != null) {
                present.add(key);
            }
        }
        long[] offsets = new long[present.size() * hashes];
        shardOf = new int[present.size()];
        int[] perShard = new int[shards];
        boolean inMirror = mirror != null && !present.isEmpty();
        for (int i = 0; i < present.size(); i++) {
            shardOf[i] = filter.place(present.get(i), offsets, i * hashes);
            perShard[shardOf[i]]++;
            if (inMirror) {
                long[] single = Arrays.copyOfRange(offsets, i * hashes, (i + 1) * hashes);
                inMirror = mirror.lookup(shardOf[i], single, hashes) == BitmapMirror.Local.PRESENT;
            }
        }
        allInMirror = inMirror;
        slotOfShard = new int[shards];
        positionInShard = new int[present.size()];
        if (allInMirror) {
            return;
        }
        int[] filled = new int[shards];
        Arrays.fill(slotOfShard, -1);
        for (int shard = 0; shard < shards; shard++) {
            if (perShard[shard] > 0) {
                slotOfShard[shard] = shardKeys.size();
                shardKeys.add(filter.keys().live(shard));
                long[] shardProbes = new long[perShard[shard] * hashes + 1];
                shardProbes[shardProbes.length - 1] = geometry.markerOffset();
                probes.add(shardProbes);
            }
        }
        for (int i = 0; i < present.size(); i++) {
            int shard = shardOf[i];
            positionInShard[i] = filled[shard]++;
            System.arraycopy(offsets, i * hashes, probes.get(slotOfShard[shard]), positionInShard[i] * hashes, hashes);
        }
    }

    boolean allInMirror() {
        return allInMirror;
    }

    List<Membership> allPresent() {
        List<Membership> allPresent = new ArrayList<>(keys.size());
        keys.forEach(key -> allPresent.add(Membership.PRESENT));
        return allPresent;
    }

    /**
     * Why {@link #answers} read {@link Membership#NOT_READY}: a shard's marker clear in
     * {@code replies}, else a reason not to block held.
     */
    NotReadyCause cause(List<BitSet> replies, Holds holds) {
        for (int slot = 0; replies != null && slot < replies.size(); slot++) {
            if (!replies.get(slot).get(probes.get(slot).length - 1)) {
                return NotReadyCause.INCOMPLETE;
            }
        }
        return holds.heldAtEitherEnd(sent, Hold.FOREIGN_SOURCE) ? NotReadyCause.SUSPENDED : null;
    }

    /**
     * @param replies Redis's replies, one per shard key, or null when the read failed
     * @param holds the filter's reasons not to block, read again as the replies are read
     */
    List<Membership> answers(List<BitSet> replies, Holds holds) {
        List<Membership> result = new ArrayList<>(keys.size());
        int index = 0;
        for (Object key : keys) {
            if (key == null) {
                result.add(Membership.PRESENT);
                continue;
            }
            if (replies == null) {
                result.add(Membership.UNAVAILABLE);
                index++;
                continue;
            }
            int slot = slotOfShard[shardOf[index]];
            result.add(Verdict.read(replies.get(slot), probes.get(slot).length - 1, positionInShard[index] * hashes,
                    hashes, holds, sent));
            index++;
        }
        return result;
    }
}
