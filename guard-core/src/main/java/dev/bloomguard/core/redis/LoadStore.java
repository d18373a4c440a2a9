package dev.bloomguard.core.redis;

import java.time.Duration;
import java.util.Map;

/**
 * What a load does in Redis: the staging upload, its mark in the adds journal, the replay in bounded
 * steps, the swap, and the journal's upkeep; each step refuses a load that Redis lost part of.
 *
 * <p>A role of {@link BitmapStore}; every failure, refusal or timeout is a {@link BitmapStoreException}.
 */
public interface LoadStore {

    /**
     * Writes {@code bitmap} as the whole value of {@code key}, expiring after {@code expiry}:
     * one {@code SET} for the first chunk and {@code SETRANGE} for the rest, so Redis allocates
     * the string once instead of growing it bit by bit.
     */
    void writeBitmap(String key, byte[] bitmap, Duration expiry);

    /** A replay's or swap's answer when the staging key is missing or is not the bitmap uploaded. */
    long STAGING_ALTERED = -1;

    /** A replay's or swap's answer when the journal no longer holds the load's mark where it was left. */
    long JOURNAL_LOST = -2;

    /** A replay's or swap's answer when a newer load began on the shard since this one: it must not swap. */
    long SUPERSEDED = -3;

    /**
     * The keys of one shard's adds journal, all in the shard's hash slot.
     *
     * @param current the list adds are pushed onto
     * @param previous the list {@code current} became at the last rotation
     * @param since when {@code current} began (Redis time, ms)
     * @param dropped present while adds younger than the retention may have left the journal
     * @param loading the fencing token of the newest load of the shard; present while it runs
     */
    record JournalKeys(String current, String previous, String since, String dropped, String loading) {
    }

    /**
     * An uploaded bitmap as the replays and the swap must find it.
     *
     * @param key the staging key
     * @param length its length in bytes
     * @param population its set bits as uploaded
     * @param token the load's fencing token, held by the journal's {@code loading} key
     * @param journalMark the entry the load pushed onto the journal before reading its source
     * @param markIndex where in the current journal the mark was pushed
     */
    record Staging(String key, long length, long population, String token, byte[] journalMark, long markIndex) {
    }

    /**
     * In one script: marks {@code journal} as loaded by {@code token} (overwriting an older load's
     * token, which can then no longer swap; kept at most {@code ttl}), then pushes {@code mark}
     * onto it.
     *
     * @return the mark's index in the current journal
     */
    long beginJournalLoad(JournalKeys journal, String token, byte[] mark, Duration ttl);

    /**
     * One bounded step of a replay: if the load still holds the shard ({@code token}), the staging
     * key is still there (and, when {@code verifyUpload}, still has its uploaded length and
     * population) and the mark is still where it was left, sets on the staging key the bits of up
     * to {@code count} journal entries of {@code list} from {@code start}.
     *
     * @return {entries read, adds replayed}, or {code, 0} with {@link #STAGING_ALTERED},
     *         {@link #JOURNAL_LOST} or {@link #SUPERSEDED}
     */
    long[] replayJournal(Staging staging, JournalKeys journal, String list, long start, int count,
            boolean verifyUpload);

    /**
     * Atomically (one script), and only if the load still holds the shard, the staging key still
     * has its length and the mark is still where it was left: replays the current journal from
     * {@code tailStart} onto the staging key, merges the live bitmap into it while
     * {@code journal.dropped()} exists, removes its expiry, renames it over {@code live}, ends the
     * load's hold on the journal and records {@code meta}. The journal itself stays: it keeps adds
     * for the retention, whatever the swaps. Otherwise changes nothing.
     *
     * @return adds replayed, or {@link #STAGING_ALTERED}, {@link #JOURNAL_LOST} or {@link #SUPERSEDED}
     */
    long swapIn(Staging staging, String live, JournalKeys journal, long tailStart, String metaKey,
            Map<String, String> meta);

    /**
     * Keeps the journal within its retention and capacity, in one script: when {@code current}
     * began at least {@code retention} ago and no load holds the journal, drops {@code previous}
     * and makes {@code current} the new {@code previous} (so an add stays between one and two
     * retentions); then, beyond {@code capacity} entries in both, drops the oldest (from
     * {@code current} only while no load holds the journal: the load's mark must not move) and
     * marks the journal {@code dropped} for a retention, so that swaps merge the live bitmap
     * meanwhile.
     *
     * @return the entries dropped beyond the capacity
     */
    long maintainJournal(JournalKeys journal, Duration retention, long capacity);

    /** {@code LLEN key}: 0 when it does not exist. */
    long listLength(String key);

    /**
     * Empties the element at {@code index} of {@code key} if it still is {@code value}: unlike
     * removing it, this moves no other element, so the positions a running load relies on stay.
     */
    void listBlankIfEquals(String key, long index, byte[] value);
}
