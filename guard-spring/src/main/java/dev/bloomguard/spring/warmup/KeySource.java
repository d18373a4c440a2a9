package dev.bloomguard.spring.warmup;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Stream;

import dev.bloomguard.core.LoadReport;
import dev.bloomguard.core.filter.GrownGeneration;
import dev.bloomguard.core.filter.RedisBloomFilter;

/**
 * Where a filter's keys come from: every key that exists, read afresh for each warmup, re-warm
 * after Redis lost the filter, and rebuild. {@link SqlKeySource} reads {@code warmup.sql};
 * {@link RepositoryKeySource} reads a Spring Data repository's (or any) {@link Stream}; a bean of
 * this type chosen with {@code @BloomKeySource("user")} or
 * {@code bloom-guard.filters.user.source-bean} reads anything else (MongoDB, another service).
 *
 * <p>The one thing easy to get wrong: {@link #keys} must read what exists when it is called, not
 * a copy taken earlier. The warmer begins the load (from then on every {@code @BloomPut} add is
 * journaled and replayed onto the new bitmap) before it calls {@link #keys}; a key written
 * between an older copy and that call would be in neither, and be blocked.
 *
 * <p>A filter fed by a bean compares keys by the declared {@code key-type}, or by their Java type
 * without one (only a SQL source reads the type from its key column).
 */
public interface KeySource {

    /**
     * Opens a stream of every key of {@code filter}; the warmer reads it once and closes it, on
     * the thread that opened it (so a transaction bound to that thread spans the read). A source
     * may hold tens of millions of keys: stream them from a cursor, never collect them first.
     * Null keys are skipped.
     */
    Stream<?> keys(RedisBloomFilter filter);

    /**
     * Names what this source puts into {@code filter}, stored with the live bitmap: a filter
     * loaded under another fingerprint is reloaded at startup however fresh, and while another
     * instance's fingerprint is live this one lets absent keys through. Change it exactly when
     * the source's definition changes (a query that returns other keys, another key type), never
     * per run: a fingerprint that changes at every start reloads the filter at every start.
     * Name the source, not the filter's geometry: the generation auto-resize grows a filter into
     * is loaded with {@link #keys} and this fingerprint of the same {@code filter}, and blocks
     * only while its fingerprint is the one of the filter's live bitmap.
     */
    String fingerprint(RedisBloomFilter filter);

    /** What the source reads, for the log and the actuator endpoint: no key values, no credentials. */
    default String description() {
        return getClass().getSimpleName();
    }

    /**
     * Optional: the keys written since a point in time, for writers that never pass through
     * {@code @BloomPut} (another service, a batch job). Without it such keys are blocked until the
     * next rebuild ({@code rebuild.interval}). The SQL source has one when
     * {@code warmup.catch-up-sql} is set.
     */
    default Optional<CatchUp> catchUp() {
        return Optional.empty();
    }

    /**
     * Loads {@code filter} from {@code source} and swaps it in: the load begins before
     * {@link #keys} is called, so that the swap can tell whether Redis kept every add made after
     * the source's snapshot; see {@link RedisBloomFilter#load(java.util.Iterator, String, boolean)}
     * for {@code force}. Takes no lock: {@link FilterWarmer} holds the filter's load lock around it.
     */
    static LoadReport load(KeySource source, RedisBloomFilter filter, boolean force) {
        return load(source, filter, filter::beginLoad, force);
    }

    /**
     * Loads a generation auto-resize grew {@code grown.filter()} into, from the keys {@code source}
     * gives for that filter (a grown generation has its name, key type and hash), as
     * {@link #load(KeySource, RedisBloomFilter, boolean)} loads the filter itself.
     */
    static LoadReport load(KeySource source, GrownGeneration grown, boolean force) {
        return load(source, grown.filter(), grown::beginLoad, force);
    }

    /** Loads into what {@code into} begins the keys {@code source} gives for {@code filter}. */
    private static LoadReport load(KeySource source, RedisBloomFilter filter,
            Supplier<RedisBloomFilter.PendingLoad> into, boolean force) {
        // The source's clock before its snapshot, recorded with the bitmap: every instance's
        // catch-up of rows written since this load starts there.
        Instant sourceTime = source.catchUp().map(CatchUp::now).orElse(null);
        try (RedisBloomFilter.PendingLoad pending = into.get(); Stream<?> keys = source.keys(filter)) {
            return pending.load(keys.iterator(), source.fingerprint(filter), sourceTime, force);
        }
    }

    /**
     * Adds to a filter the keys written since a time, every {@link #interval()}.
     *
     * <p>Times are the source's own clock ({@link #now()}), so that clock skew between the
     * application and the source cannot skip a key. {@link KeySource#load} asks for
     * {@link #now()} just before each load and records it with the live bitmap; every instance
     * catches up from there once the load is live.
     */
    interface CatchUp {

        /** How often {@link #addSince} runs. */
        Duration interval();

        /**
         * The source's clock now.
         *
         * @throws RuntimeException when the source cannot say: no other clock stands in for it
         */
        Instant now();

        /**
         * Adds to {@code filter} every key written at or after {@code since} (less whatever
         * margin the source needs for writes that commit late).
         *
         * @return the source's clock when this run began: the next run's {@code since}
         */
        Instant addSince(RedisBloomFilter filter, Instant since);
    }
}
