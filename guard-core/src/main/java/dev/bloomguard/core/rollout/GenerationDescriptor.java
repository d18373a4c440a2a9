package dev.bloomguard.core.rollout;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.hash.KeyHash;
import dev.bloomguard.core.hash.KeyType;

/**
 * A generation of a filter as the rollout registry names it: {@code
 * expectedInsertions/fpp/shards/keyType[/hash]}, enough to rebuild its filter. Part of the stored
 * format: every release of every instance must write and read the same text for one generation.
 */
public final class GenerationDescriptor {

    private GenerationDescriptor() {
    }

    /** A generation's descriptor: {@code expectedInsertions/fpp/shards/keyType}, enough to rebuild its filter. */
    public static String of(FilterGeometry geometry, KeyType keyType) {
        return of(geometry, keyType, KeyHash.murmur3().id());
    }

    /**
     * A generation's descriptor with its hash: {@code expectedInsertions/fpp/shards/keyType/hash},
     * where {@code hash} is a {@link KeyHash#id()} other than murmur3 ({@code sip-1a2b3c4d}). A
     * murmur3 generation has no fifth field: its descriptor is the four fields of the geometry and
     * key type alone, so that the default hash adds nothing to the registry's names.
     */
    public static String of(FilterGeometry geometry, KeyType keyType, String hashId) {
        return geometry.expectedInsertions() + "/" + geometry.fpp() + "/" + geometry.shards() + "/"
                + (keyType == null ? "-" : keyType.id())
                + (hashId.equals(KeyHash.murmur3().id()) ? "" : "/" + hashId);
    }

    /** The descriptor of {@code filter}'s generation. */
    public static String of(Generation filter) {
        return of(filter.geometry(), filter.keyType().orElse(null), filter.hash().id());
    }

    /**
     * The {@link KeyHash#id()} a descriptor names: its fifth field, or murmur3 without one (a
     * murmur3 generation's descriptor has four fields).
     *
     * @throws IllegalArgumentException when the fifth field is no hash id
     */
    public static String hashId(String descriptor) {
        String[] parts = descriptor.split("/");
        if (parts.length < 5) {
            return KeyHash.murmur3().id();
        }
        if (!KeyHash.isValidId(parts[4])) {
            throw new IllegalArgumentException("generation " + descriptor + " names an unknown hash (" + parts[4] + ")");
        }
        return parts[4];
    }

    /** The geometry a descriptor names. */
    public static FilterGeometry geometry(String descriptor) {
        String[] parts = descriptor.split("/");
        return FilterGeometry.withShards(Long.parseLong(parts[0]), Double.parseDouble(parts[1]),
                Integer.parseInt(parts[2]));
    }

    /** The key type a descriptor names, or null. */
    public static KeyType keyType(String descriptor) {
        String id = descriptor.split("/")[3];
        for (KeyType type : KeyType.values()) {
            if (type.id().equals(id)) {
                return type;
            }
        }
        return null;
    }
}
