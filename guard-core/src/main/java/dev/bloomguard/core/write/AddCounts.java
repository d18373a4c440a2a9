package dev.bloomguard.core.write;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.stream.IntStream;

import dev.bloomguard.core.FilterKeys;

/**
 * What one instance knows of a filter's add counts, to notice Redis going back in time (issue 11,
 * path 2). Each instance counts its own adds in one field per shard of {@link FilterKeys#addCount}
 * hash; counts only ever grow, so a count lower than one seen before means Redis lost writes.
 *
 * <ul>
 * <li>Its own count is compared with the adds Redis <em>confirmed</em> to this instance.</li>
 * <li>Every other instance's count is compared with the highest this instance <em>saw</em>: so
 * the loss of adds made by an instance that is gone since (redeployed, or on the host that
 * crashed with Redis) is still noticed, by whoever saw them counted.</li>
 * <li>{@link #REWINDS_FIELD} counts the rewinds an instance acted on. When it grew since this
 * instance looked, another instance already made the filter not ready and started a reload:
 * this one takes the new counts as its baseline instead of clearing the filter a second time
 * (which could undo a reload that already finished).</li>
 * </ul>
 *
 * <p>Thread-safe: adds, the periodic check and the rewind handler call it from different threads.
 */
public final class AddCounts {

    /** The field of the count hash that counts handled rewinds; never an instance id. */
    public static final String REWINDS_FIELD = "#rewinds";

    /** What a read of a shard's counts says. */
    enum Verdict { CURRENT, BEHIND, HANDLED_ELSEWHERE }

    /** A verdict and, when {@link Verdict#BEHIND}, which count went back. */
    record Finding(Verdict verdict, String detail) {
    }

    private final String instanceId;
    /** Guarded by this, as the rest: a confirmation or a read taken before a baseline must not count after it. */
    private long epoch;
    private final AtomicLongArray confirmed;
    /** Per shard, guarded by this: the highest count seen per instance, and the rewinds count (-1: not read yet). */
    private final List<Map<String, Long>> seen;
    private final long[] seenRewinds;

    AddCounts(String instanceId, int shards) {
        this.instanceId = instanceId;
        this.confirmed = new AtomicLongArray(shards);
        this.seen = IntStream.range(0, shards).<Map<String, Long>>mapToObj(shard -> new HashMap<>()).toList();
        this.seenRewinds = new long[shards];
        Arrays.fill(seenRewinds, -1);
    }

    /** This instance's adds to {@code shard} that Redis confirmed since the last baseline. */
    long confirmed(int shard) {
        return confirmed.get(shard);
    }

    /**
     * Copies every shard's confirmed adds into {@code confirmedNow}, and returns the epoch they
     * belong to: it changes with every new baseline, and an add sent before one is not judged
     * against it.
     */
    synchronized long snapshot(long[] confirmedNow) {
        for (int shard = 0; shard < confirmedNow.length; shard++) {
            confirmedNow[shard] = confirmed.get(shard);
        }
        return epoch;
    }

    /**
     * Judges the receipt of one of this instance's adds: Redis counted {@code count} for this
     * instance once the add's {@code entries} were in. An add sent in an earlier epoch is ignored
     * (its count may predate a rewind acted on since). Otherwise the count is confirmed: taken as
     * it is, not added to, since a baseline read between the add's count and its receipt already
     * holds it.
     *
     * @param confirmedBefore this instance's confirmed adds when the add was sent
     */
    synchronized Finding afterAdd(int shard, long count, long entries, long confirmedBefore, long sentInEpoch) {
        if (sentInEpoch != epoch) {
            return new Finding(Verdict.CURRENT, null);
        }
        if (count - entries < confirmedBefore) {
            return behind(shard, "this instance's adds counted " + (count - entries) + " where " + confirmedBefore
                    + " had been confirmed");
        }
        confirmed.accumulateAndGet(shard, count, Math::max);
        return new Finding(Verdict.CURRENT, null);
    }

    /**
     * Compares a fresh read of {@code shard}'s count hash with what this instance knew; when
     * nothing went back, remembers what it read.
     *
     * @param confirmedBefore this instance's confirmed adds, taken before the read (Redis counted them first)
     */
    synchronized Finding compare(int shard, Map<String, String> counts, long confirmedBefore) {
        long rewinds = count(counts, REWINDS_FIELD);
        if (seenRewinds[shard] >= 0 && rewinds > seenRewinds[shard]) {
            return new Finding(Verdict.HANDLED_ELSEWHERE, null);
        }
        long own = count(counts, instanceId);
        if (own < confirmedBefore) {
            return behind(shard, "this instance's adds counted " + own + " where " + confirmedBefore
                    + " had been confirmed");
        }
        if (rewinds < seenRewinds[shard]) {
            return behind(shard, "the rewinds acted on counted " + rewinds + " where " + seenRewinds[shard]
                    + " had been seen");
        }
        for (Map.Entry<String, Long> before : seen.get(shard).entrySet()) {
            long now = count(counts, before.getKey());
            if (now < before.getValue()) {
                return behind(shard, "instance " + before.getKey() + "'s adds counted " + now + " where "
                        + before.getValue() + " had been seen");
            }
        }
        remember(shard, counts);
        return new Finding(Verdict.CURRENT, null);
    }

    /** Takes {@code counts}, read after a rewind was acted on, as {@code shard}'s new baseline. */
    synchronized void rebaseline(int shard, Map<String, String> counts) {
        epoch++;
        confirmed.set(shard, count(counts, instanceId));
        seen.get(shard).clear();
        remember(shard, counts);
    }

    /** True when the shard's rewinds count grew since this instance last looked. */
    synchronized boolean handledElsewhere(int shard, Map<String, String> counts) {
        return seenRewinds[shard] >= 0 && count(counts, REWINDS_FIELD) > seenRewinds[shard];
    }

    private void remember(int shard, Map<String, String> counts) {
        counts.forEach((field, value) -> {
            if (!field.equals(REWINDS_FIELD) && !field.equals(instanceId)) {
                seen.get(shard).merge(field, Long.parseLong(value), Math::max);
            }
        });
        seenRewinds[shard] = count(counts, REWINDS_FIELD);
    }

    private static Finding behind(int shard, String detail) {
        return new Finding(Verdict.BEHIND, "shard " + shard + ": " + detail);
    }

    private static long count(Map<String, String> counts, String field) {
        String value = counts.get(field);
        return value == null ? 0 : Long.parseLong(value);
    }
}
