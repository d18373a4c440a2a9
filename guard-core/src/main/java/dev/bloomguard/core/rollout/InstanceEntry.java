package dev.bloomguard.core.rollout;

import java.util.Collection;
import java.util.Map;
import java.util.function.Predicate;

/**
 * One instance's entry in a rollout registry's instances hash, as every release writes it:
 * {@code <own generation>[#hashes]|<generation>@<since>,...|<seen>}, where {@code since} is when the
 * instance began to write to that generation (Redis ms; 0: since its start) and {@code seen} its
 * last heartbeat, appended by the heartbeat script. Part of the stored format.
 */
final class InstanceEntry {

    /**
     * Marks the own-generation field of a heartbeat from an instance that knows hashes; every
     * instance of format version 1 writes it. A writer that read descriptors by their first four
     * fields alone would take a siphash descriptor for murmur3 and, when the geometry differs too,
     * write murmur3 bits to keys nobody reads while it reports writing to that generation, so a
     * heartbeat without the mark is not taken for a siphash generation. No release has been such a
     * writer; the mark keeps the registry's rule explicit rather than implied by the descriptor.
     */
    static final String KNOWS_HASHES = "#hashes";

    private final String[] fields;
    private final long seen;

    private InstanceEntry(String[] fields) {
        this.fields = fields;
        this.seen = Long.parseLong(fields[2]);
    }

    static InstanceEntry parse(String value) {
        return new InstanceEntry(value.split("\\|"));
    }

    /** The instance's last heartbeat, by Redis's clock (ms). */
    long seen() {
        return seen;
    }

    /** Whether the instance's release knows hashes: see {@link #KNOWS_HASHES}. */
    boolean knowsHashes() {
        return fields[0].endsWith(KNOWS_HASHES);
    }

    /** Since when the instance writes to the last generation it lists that {@code generation} accepts; null: none. */
    Long since(Predicate<String> generation) {
        Long since = null;
        for (String written : fields[1].split(",")) {
            int at = written.lastIndexOf('@');
            if (generation.test(written.substring(0, at))) {
                since = Long.parseLong(written.substring(at + 1));
            }
        }
        return since;
    }

    /** What this instance heartbeats (the script appends {@code |<seen>}): its own generation and those it writes to. */
    static String value(String ownDescriptor, Collection<String> writes, Map<String, Long> writingSince) {
        StringBuilder value = new StringBuilder(ownDescriptor).append(KNOWS_HASHES).append('|');
        int length = value.length();
        for (String descriptor : writes) {
            value.append(value.length() == length ? "" : ",").append(descriptor).append('@')
                    .append(writingSince.getOrDefault(descriptor, 0L));
        }
        return value.toString();
    }
}
