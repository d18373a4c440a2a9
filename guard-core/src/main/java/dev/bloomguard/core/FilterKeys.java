package dev.bloomguard.core;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.UUID;

/**
 * Redis key names of one filter. The geometry is in the name, so bits written with one
 * geometry are never read with another; the part in braces is a cluster hash tag, so a
 * filter's staging key lands in the same slot as its live key and {@code RENAME} can swap them.
 *
 * <p>Live key: {@code <prefix>:{<filter>:<geometry>:0}}, e.g. {@code bg:{user:m9585088k7:0}};
 * beside it, in the same slot: {@code :adds} (journal), {@code :meta}, {@code :lock} and
 * {@code :staging:<id>}.
 */
public final class FilterKeys {

    private final String live;

    private FilterKeys(String live) {
        this.live = live;
    }

    public static FilterKeys of(String keyPrefix, String filterName, FilterGeometry geometry) {
        checkArgument(keyPrefix != null && !keyPrefix.isBlank(), "key-prefix (%s) must not be blank", keyPrefix);
        checkArgument(filterName != null && filterName.matches("[A-Za-z0-9_.-]+"),
                "filter name (%s) may only use letters, digits, '_', '.' and '-'", filterName);
        return new FilterKeys(keyPrefix + ":{" + filterName + ":" + geometry.id() + ":0}");
    }

    /** The key checks read. */
    public String live() {
        return live;
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
