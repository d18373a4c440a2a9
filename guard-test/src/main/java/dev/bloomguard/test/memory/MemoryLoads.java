package dev.bloomguard.test.memory;

import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.bloomguard.core.redis.LoadStore;
import dev.bloomguard.core.redis.PackedOffsets;

/**
 * A load and the adds journal in memory ({@link LoadStore}): each method does, under the keyspace's
 * lock, what the script of the same name under {@code dev/bloomguard/core/redis/lua} does in Redis
 * ({@code begin-load}, {@code replay-journal}, {@code swap}, {@code maintain-journal},
 * {@code blank-if-equals}), refusals and their codes included.
 */
final class MemoryLoads implements LoadStore {

    private static final byte[] ONE = { '1' };

    private final Keyspace keys;

    MemoryLoads(Keyspace keys) {
        this.keys = keys;
    }

    @Override
    public void writeBitmap(String key, byte[] bitmap, Duration expiry) {
        byte[] copy = bitmap.clone();
        keys.write(() -> {
            keys.set(key, copy, expiry == null ? 0 : Math.max(1, expiry.toMillis()));
            return null;
        });
    }

    @Override
    public long beginJournalLoad(JournalKeys journal, String token, byte[] mark, Duration ttl) {
        return keys.write(() -> {
            keys.setText(journal.loading(), token, Math.max(1, ttl.toMillis()));
            List<byte[]> current = keys.listToWrite(journal.current());
            current.add(mark.clone());
            return current.size() - 1L;
        });
    }

    @Override
    public long[] replayJournal(Staging staging, JournalKeys journal, String list, long start, int count,
            boolean verifyUpload) {
        return keys.write(() -> {
            if (!staging.token().equals(keys.text(journal.loading()))) {
                return new long[] { SUPERSEDED, 0 };
            }
            // Never creates the staging key: a step that found it gone would otherwise recreate it.
            boolean altered = verifyUpload
                    ? keys.length(staging.key()) != staging.length() || keys.bitCount(staging.key()) != staging.population()
                    : !keys.exists(staging.key());
            if (altered) {
                return new long[] { STAGING_ALTERED, 0 };
            }
            if (!markInPlace(staging, journal)) {
                return new long[] { JOURNAL_LOST, 0 };
            }
            List<byte[]> entries = keys.listRange(list, start, start + count - 1);
            return new long[] { entries.size(), replay(staging.key(), entries, staging.journalMark()) };
        });
    }

    @Override
    public long swapIn(Staging staging, String live, JournalKeys journal, long tailStart, String metaKey,
            Map<String, String> meta) {
        return keys.write(() -> {
            if (!staging.token().equals(keys.text(journal.loading()))) {
                return SUPERSEDED;
            }
            if (keys.length(staging.key()) != staging.length()) {
                return STAGING_ALTERED;
            }
            if (!markInPlace(staging, journal)) {
                return JOURNAL_LOST;
            }
            long replayed = replay(staging.key(), keys.listRange(journal.current(), tailStart, -1), staging.journalMark());
            if (keys.exists(journal.dropped()) && keys.exists(live)) {
                orInto(staging.key(), keys.string(live));
            }
            keys.persist(staging.key());
            keys.rename(staging.key(), live);
            // What writers, remembers and mirrors tell each other outlives the load: see swap.lua.
            Map<String, String> before = keys.hash(metaKey);
            List<String> kept = List.of("missesUntil", "unmarkedAddAt", "trustingUntil");
            Map<String, String> outliving = new LinkedHashMap<>();
            kept.stream().filter(before::containsKey).forEach(field -> outliving.put(field, before.get(field)));
            keys.delete(journal.loading());
            keys.delete(metaKey);
            if (!meta.isEmpty()) {
                Map<String, String> after = keys.hashToWrite(metaKey);
                after.putAll(meta);
                after.putAll(outliving);
            }
            return replayed;
        });
    }

    @Override
    public long maintainJournal(JournalKeys journal, Duration retention, long capacity) {
        return keys.write(() -> {
            long now = keys.now();
            String since = keys.text(journal.since());
            if (since == null) {
                keys.setText(journal.since(), Long.toString(now), 0);
            }
            else if (now - Long.parseLong(since) >= retention.toMillis() && !keys.exists(journal.loading())) {
                keys.delete(journal.previous());
                if (keys.exists(journal.current())) {
                    keys.rename(journal.current(), journal.previous());
                }
                keys.setText(journal.since(), Long.toString(now), 0);
            }
            long previous = keys.list(journal.previous()).size();
            long over = previous + keys.list(journal.current()).size() - capacity;
            if (over <= 0) {
                return 0L;
            }
            long fromPrevious = Math.min(over, previous);
            long holding = keys.ttl(journal.loading());
            // While a load holds the journal, its mark must stay where it was left.
            long fromCurrent = holding < 0 ? over - fromPrevious : 0;
            keys.listDropFirst(journal.previous(), fromPrevious);
            keys.listDropFirst(journal.current(), fromCurrent);
            if (fromPrevious + fromCurrent > 0) {
                // A running load may swap as late as its hold lasts: merge until then, and a retention more.
                keys.set(journal.dropped(), ONE, Math.max(1, retention.toMillis() + Math.max(0, holding)));
            }
            return fromPrevious + fromCurrent;
        });
    }

    @Override
    public long listLength(String key) {
        return keys.read(() -> (long) keys.list(key).size());
    }

    @Override
    public void listBlankIfEquals(String key, long index, byte[] value) {
        keys.write(() -> {
            if (Arrays.equals(keys.listIndex(key, index), value)) {
                List<byte[]> list = keys.listToWrite(key);
                list.set((int) (index < 0 ? list.size() + index : index), new byte[0]);
            }
            return null;
        });
    }

    private boolean markInPlace(Staging staging, JournalKeys journal) {
        return Arrays.equals(keys.listIndex(journal.current(), staging.markIndex()), staging.journalMark());
    }

    /**
     * Sets on {@code bitmap} the bits of each add in {@code entries} (packed offsets), skipping loads'
     * marks (as long as {@code mark}, starting with its marker offset) and blanked marks (empty).
     *
     * @return the adds replayed
     */
    private long replay(String bitmap, List<byte[]> entries, byte[] mark) {
        long replayed = 0;
        for (byte[] entry : entries) {
            boolean isMark = entry.length == mark.length && Arrays.equals(entry, 0, 4, mark, 0, 4);
            if (entry.length > 0 && entry.length % 4 == 0 && !isMark) {
                replayed++;
                for (int at = 0; at < entry.length; at += 4) {
                    keys.setBit(bitmap, PackedOffsets.unpack(entry, at), true);
                }
            }
        }
        return replayed;
    }

    /** {@code BITOP OR key key other}: as long as the longer of the two and, as any overwrite, without an expiry. */
    private void orInto(String key, byte[] other) {
        byte[] value = keys.string(key);
        byte[] result = Arrays.copyOf(value, Math.max(value.length, other.length));
        for (int i = 0; i < other.length; i++) {
            result[i] |= other[i];
        }
        keys.set(key, result, 0);
    }
}
