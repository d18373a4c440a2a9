package dev.bloomguard.core.load;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import dev.bloomguard.core.context.FilterContext;
import dev.bloomguard.core.rollout.FilterGenerations;
import dev.bloomguard.core.rollout.LoadOrder;

/**
 * What the live bitmap's metadata hash ({@code FilterKeys#meta}) says about the load that swapped
 * it in; written by the swap with shard 0. Fields absent from the hash (Redis lost it, or no
 * load wrote that field) are empty.
 *
 * @param loadedAt when the swap happened, by the loader's clock
 * @param keys how many keys the load read from its source
 * @param duration how long the load took, in ms
 * @param source the source's id (a fingerprint of the warmup query)
 * @param sourceTime the source's own clock (the database's) just before the load read it, when the
 *        loader could ask it: where a catch-up of rows written since that load begins
 *
 * <p>The swap also writes {@code covered} and {@link LoadOrder#LOAD_BEGAN}, which only
 * {@link FilterGenerations} reads (its rule for a bitmap that may lack some writer's adds).
 */
public record LiveMeta(Optional<Instant> loadedAt, Optional<Long> keys, Optional<String> loadedBy,
        Optional<Long> duration, Optional<String> source, Optional<Instant> sourceTime) {

    /** The field naming the load that swapped the bitmap in: on every shard's {@code :meta}, the rest on shard 0's only. */
    static final String LOADED_AT = "loadedAt";

    /** Reads it; throws {@code BitmapStoreException} when Redis does not answer. */
    public static LiveMeta read(FilterContext filter) {
        return of(filter.store().hashGetAll(filter.keys().meta()));
    }

    public static LiveMeta of(Map<String, String> meta) {
        return new LiveMeta(number(meta, "loadedAt").map(Instant::ofEpochMilli), number(meta, "keys"),
                Optional.ofNullable(meta.get("loadedBy")), number(meta, "durationMs"),
                Optional.ofNullable(meta.get("source")), number(meta, "sourceTime").map(Instant::ofEpochMilli));
    }

    /**
     * The hash a swap writes: the loader's clock for {@code loadedAt}, Redis's for {@code loadBegan};
     * {@code covered}: whether every instance wrote to this generation when the load began.
     */
    static Map<String, String> of(Instant loadedAt, long keys, String loadedBy, long durationMs, String source,
            Instant sourceTime, boolean covered, long loadBegan) {
        Map<String, String> meta = new LinkedHashMap<>();
        meta.put(LOADED_AT, Long.toString(loadedAt.toEpochMilli()));
        meta.put("keys", Long.toString(keys));
        meta.put("loadedBy", loadedBy);
        meta.put("durationMs", Long.toString(durationMs));
        if (source != null) {
            meta.put("source", source);
        }
        if (sourceTime != null) {
            meta.put("sourceTime", Long.toString(sourceTime.toEpochMilli()));
        }
        meta.put("covered", covered ? "1" : "0");
        meta.put(LoadOrder.LOAD_BEGAN, Long.toString(loadBegan));
        return meta;
    }

    private static Optional<Long> number(Map<String, String> meta, String field) {
        String value = meta.get(field);
        return value == null ? Optional.empty() : Optional.of(Long.parseLong(value));
    }
}
