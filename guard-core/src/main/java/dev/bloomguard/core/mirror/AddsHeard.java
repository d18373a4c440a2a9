package dev.bloomguard.core.mirror;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.bloomguard.core.events.AddCount;

/**
 * Which other instances' adds a trusting mirror has heard of, per shard, held against the counts
 * of adds Redis keeps for each writer ({@code FilterKeys#addCount}, one field per instance id).
 * Every add is counted in Redis in the pipeline that sets its bits, whether or not its message
 * arrives later: a count that Redis showed at one look and the messages heard have not reached
 * by the next is an add this mirror never heard of (its publish was refused, lost with an open
 * circuit, or cancelled), and its pages may hold a clear bit for a key that exists.
 *
 * <p>Per writer: a base (its count at the last {@link #rebase}, whose adds the pages read after
 * it hold) and the keys heard since, counted only for messages whose count lies above the base,
 * so that a message in flight across a rebase is not counted twice. Thread-safe.
 */
final class AddsHeard {

    private final String own;
    /** Per shard: writer to {base, heard}. */
    private final List<Map<String, long[]>> tallies;
    /** Per shard: the writers' counts at the previous look, which the messages must have reached by the next. */
    private final List<Map<String, Long>> owed;

    /** @param own this instance's id: its own adds reach its mirror without a message */
    AddsHeard(String own, int shards) {
        this.own = own;
        this.tallies = new ArrayList<>(shards);
        this.owed = new ArrayList<>(shards);
        for (int shard = 0; shard < shards; shard++) {
            tallies.add(new HashMap<>());
            owed.add(new HashMap<>());
        }
    }

    /** A message of another instance's add arrived, after its bits were applied to the mirror. */
    synchronized void heard(int shard, AddCount counted) {
        if (shard < 0 || shard >= tallies.size() || counted.writer().equals(own)) {
            return;
        }
        long[] tally = tallies.get(shard).computeIfAbsent(counted.writer(), writer -> new long[2]);
        if (counted.count() > tally[0]) {
            tally[1] += counted.added();
        }
    }

    /**
     * Holds {@code counts}, read from Redis now, against what was heard: names a writer whose
     * count at the previous look is still not heard of, or returns null. Remembers {@code counts}
     * for the next look.
     */
    synchronized String unheard(int shard, Map<String, String> counts) {
        String found = null;
        Map<String, long[]> tally = tallies.get(shard);
        for (Map.Entry<String, Long> previous : owed.get(shard).entrySet()) {
            long[] writer = tally.getOrDefault(previous.getKey(), new long[2]);
            if (writer[0] + writer[1] < previous.getValue()) {
                found = "shard " + shard + ": " + (previous.getValue() - writer[0] - writer[1])
                        + " add(s) of instance " + previous.getKey();
                break;
            }
        }
        owed.set(shard, writers(counts));
        return found;
    }

    /**
     * Takes {@code counts}, read just before the mirror is emptied, as every writer's base: the
     * pages read from now on hold those adds.
     */
    synchronized void rebase(int shard, Map<String, String> counts) {
        Map<String, Long> writers = writers(counts);
        Map<String, long[]> tally = new HashMap<>();
        writers.forEach((writer, count) -> tally.put(writer, new long[] { count, 0 }));
        tallies.set(shard, tally);
        owed.set(shard, writers);
    }

    private Map<String, Long> writers(Map<String, String> counts) {
        Map<String, Long> writers = new HashMap<>();
        counts.forEach((field, value) -> {
            // Fields that begin with '#' count something else (AddCounts#REWINDS_FIELD), never an instance's adds.
            if (!field.equals(own) && !field.startsWith("#")) {
                writers.put(field, Long.parseLong(value));
            }
        });
        return writers;
    }
}
