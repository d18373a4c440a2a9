package dev.bloomguard.core;

import static dev.bloomguard.core.internal.Arguments.checkArgument;

import java.util.UUID;

import dev.bloomguard.core.hash.KeyHash;
import dev.bloomguard.core.hash.KeyType;
import dev.bloomguard.core.redis.BitmapStore;

/**
 * Redis key names of one filter. The geometry is in the name, so bits written with one
 * geometry are never read with another; the part in braces is a cluster hash tag, so a
 * filter's staging key lands in the same slot as its live key and {@code RENAME} can swap them.
 * Every name starts with {@link #start}, <code>&lt;prefix&gt;:v1:&#123;&lt;filter&gt;</code>: the
 * stored format's version ({@link #FORMAT_VERSION}) before the hash tag, so that a release of
 * another format version names other keys and never reads these bits.
 *
 * <p>Live key of shard i: {@code <prefix>:v1:{<filter>:<geometry>:i}}, e.g. {@code bg:v1:{user:m9585088k7:0}}, or
 * {@code bg:v1:{user:m9585088k7:text-case-insensitive:0}} for a key type whose canonical form of an
 * ordinary value is not its Java-type form (see {@link #of(String, String, FilterGeometry, KeyType)}),
 * and {@code bg:v1:{user:m9585088k7:sip-62c27cf4:0}} for a filter hashed with siphash (after the key
 * type's segment, if any): {@code sip-} and 8 hex digits of its secret's fingerprint
 * ({@link KeyHash#id()}), so bits hashed under one secret are never read under another, and a
 * secret lost and generated anew names new keys, not ready until loaded. A murmur3 filter, the
 * default, has no hash segment: configuring murmur3 and configuring no hash name the same keys;
 * beside it, in the same slot: {@code :adds} (journal), {@code :adds:prev}, {@code :adds:since},
 * {@code :adds:dropped}, {@code :adds:count}, {@code :loading}, {@code :meta}, {@code :lock} and
 * {@code :staging:<id>}. Keys of the filter whatever its geometry ({@link #filterWide}) sit in a
 * slot of their own, {@code <prefix>:v1:{<filter>}:<name>}: the rollout registry, the catch-up
 * progress, the resize decisions and a siphash filter's secret,
 * {@code <prefix>:v1:{<filter>}:hash-secret} and {@code :hash-secret:sip-<fingerprint>} ({@link HashSecrets}).
 */
public final class FilterKeys {

    /**
     * The version of the stored format (key names, hashing, journal, {@code :meta} fields) that
     * this release reads and writes, carried in every key name as the segment {@code v1}. A change
     * that another release would misread moves it on, and with it every key name (see the
     * stored-format compatibility policy in the changelog).
     */
    public static final int FORMAT_VERSION = 1;

    private final String live;
    private final String[] shardLive;

    private FilterKeys(String base, int shards) {
        this.shardLive = new String[shards];
        for (int shard = 0; shard < shards; shard++) {
            shardLive[shard] = base + shard + "}";
        }
        this.live = shardLive[0];
    }

    public static FilterKeys of(String keyPrefix, String filterName, FilterGeometry geometry) {
        return of(keyPrefix, filterName, geometry, null);
    }

    /**
     * The keys of a filter whose keys compare as {@code keyType} (null: by Java type). Integer,
     * UUID, text and bytes keys keep the names of a filter without a key type: their canonical
     * form of a {@code Long}, {@code UUID}, {@code String} or {@code byte[]} is the Java-type one,
     * so declaring such a key type and declaring none name the same keys. Case-insensitive and
     * {@code CHAR(n)} text store {@code "Alice"} and {@code "AB12    "} otherwise than as
     * they are, so they get names of their own: a filter never reads bits hashed the other way.
     */
    public static FilterKeys of(String keyPrefix, String filterName, FilterGeometry geometry, KeyType keyType) {
        return of(keyPrefix, filterName, geometry, keyType, KeyHash.murmur3().id());
    }

    /**
     * The keys of a filter hashed with the {@link KeyHash} whose {@link KeyHash#id() id} is
     * {@code hashId}: murmur3 adds nothing to the names, siphash adds {@code sip-<fingerprint>:}.
     */
    public static FilterKeys of(String keyPrefix, String filterName, FilterGeometry geometry, KeyType keyType,
            String hashId) {
        checkArgument(KeyHash.isValidId(hashId), "hash id (%s) must be murmur3 or sip- and 8 hex digits", hashId);
        checkArgument(keyPrefix != null && !keyPrefix.isBlank(), "key-prefix (%s) must not be blank", keyPrefix);
        checkArgument(isValidFilterName(filterName),
                "filter name (%s) may only use letters, digits, '_', '.' and '-'", filterName);
        String keyTypeSegment = keyType == KeyType.TEXT_CASE_INSENSITIVE || keyType == KeyType.CHAR
                ? keyType.id() + ":" : "";
        String hashSegment = hashId.equals(KeyHash.murmur3().id()) ? "" : hashId + ":";
        return new FilterKeys(start(keyPrefix, filterName) + ":" + geometry.id() + ":" + keyTypeSegment + hashSegment,
                geometry.shards());
    }

    /**
     * <code>&lt;prefix&gt;:v1:&#123;&lt;filter&gt;</code>: how every Redis key of the filter starts,
     * the format version before the hash tag that the filter's name opens. The one place that puts
     * the version into a name: a key built otherwise would outlive a format change unnoticed.
     */
    public static String start(String keyPrefix, String filterName) {
        return keyPrefix + ":v" + FORMAT_VERSION + ":{" + filterName;
    }

    /**
     * {@code <prefix>:v1:{<filter>}:<name>}: a key of the filter whatever its generation (the
     * rollout registry, a resize decision, a catch-up's progress, a siphash secret), in a slot of
     * its own that no geometry change moves.
     */
    public static String filterWide(String keyPrefix, String filterName, String name) {
        return start(keyPrefix, filterName) + "}:" + name;
    }

    /** Letters, digits, '_', '.' and '-': nothing that could break out of a key name or its hash tag. */
    public static boolean isValidFilterName(String filterName) {
        return filterName != null && filterName.matches("[A-Za-z0-9_.-]+");
    }

    /** The live key of shard 0, which also carries the filter's journal of record, metadata, lock and events. */
    public String live() {
        return live;
    }

    /** The live key of {@code shard}: its own hash slot, so shards spread over a cluster's nodes. */
    public String live(int shard) {
        return shardLive[shard];
    }

    /** The adds journal of {@code shard}, in the shard's slot. */
    public String journal(int shard) {
        return shardLive[shard] + ":adds";
    }

    /** The keys of {@code shard}'s adds journal: the list of 0.1 ({@code :adds}) and its companions. */
    public BitmapStore.JournalKeys journalKeys(int shard) {
        String current = journal(shard);
        return new BitmapStore.JournalKeys(current, current + ":prev", current + ":since", current + ":dropped",
                shardLive[shard] + ":loading");
    }

    /** Counts the adds ever made to {@code shard}: instances remember it to notice Redis going back in time. */
    public String addCount(int shard) {
        return journal(shard) + ":count";
    }

    /** A fresh staging key for one bulk load of {@code shard}, in the shard's slot. */
    public String newStaging(int shard) {
        return shardLive[shard] + ":staging:" + UUID.randomUUID().toString().substring(0, 8);
    }

    /**
     * The swap script's metadata key of {@code shard}: {@code loadedAt} and what the shard's
     * remembered misses and add marks tell each other; shard 0's ({@link #meta()}) carries the rest.
     */
    public String meta(int shard) {
        return shardLive[shard] + ":meta";
    }

    /** The list of adds since the last swap, replayed onto the next one (packed bit offsets). */
    public String journal() {
        return live + ":adds";
    }

    /** Hash describing the live bitmap: when it was swapped in, by whom, from how many keys. */
    public String meta() {
        return live + ":meta";
    }

    /** The cross-instance load lock: its value names the instance loading the filter. */
    public String lock() {
        return live + ":lock";
    }

    /** The pub/sub channel on which instances tell each other's mirrors about adds and swaps. */
    public String events() {
        return live + ":events";
    }

    /** A fresh staging key for one bulk load, in the live key's hash slot. */
    public String newStaging() {
        return live + ":staging:" + UUID.randomUUID().toString().substring(0, 8);
    }
}
