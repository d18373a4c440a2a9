package dev.bloomguard.core.rollout;

import static dev.bloomguard.core.internal.Arguments.checkArgument;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.FilterKeys;
import dev.bloomguard.core.redis.BitmapStore;

/**
 * Auto-resize: the decision, kept in Redis, that a generation of a filter is to be rebuilt under
 * a larger geometry. One key per generation, {@code <prefix>:v1:{<filter>}:resize:<descriptor>},
 * holds the descriptor of the generation it grows into; the first load that finds the generation
 * over capacity writes it ({@code SET NX}), and every instance adopts what Redis holds rather than
 * what its own count would give, so a fleet whose loads read different counts agrees on one
 * geometry. A later decision for the grown generation extends the chain.
 *
 * <p>The one thing easy to get wrong: the decision only names the generation. Switching to it is
 * {@link FilterGenerations}'s, under the rules of a rolling change (every instance writes to it
 * long enough before a load of it covers them, and it answers only once loaded): a geometry taken
 * from this key alone, unloaded, would answer "absent" for every key.
 */
public final class FilterResize {

    private static final Logger log = LoggerFactory.getLogger(FilterResize.class);

    /** Decisions followed from one generation; a longer chain (a loop, a misuse) is cut here. */
    static final int MAX_CHAIN = 32;

    private FilterResize() {
    }

    /** The key that holds the decision for the generation {@code descriptor} of filter {@code name}. */
    public static String key(String keyPrefix, String name, String descriptor) {
        return FilterKeys.filterWide(keyPrefix, name, "resize:" + descriptor);
    }

    /**
     * The generations decided after {@code descriptor}, in order (empty: none). An entry that does
     * not grow the previous one under the same fpp, key type and hash is not followed.
     *
     * @throws dev.bloomguard.core.redis.BitmapStoreException when Redis fails
     */
    public static List<String> chain(BitmapStore store, String keyPrefix, String name, String descriptor) {
        List<String> chain = new ArrayList<>();
        String from = descriptor;
        for (int step = 0; step < MAX_CHAIN; step++) {
            Optional<String> next = store.get(key(keyPrefix, name, from));
            if (next.isEmpty()) {
                break;
            }
            if (!grows(from, next.get())) {
                log.warn("Filter '{}': the resize decided for generation {} names {}, which does not grow it under the"
                        + " same fpp, key type and hash; not followed", name, from, next.get());
                break;
            }
            chain.add(next.get());
            from = next.get();
        }
        return chain;
    }

    /** The generation a filter configured as {@code descriptor} runs now: the last one decided after it, or itself. */
    public static String adopted(BitmapStore store, String keyPrefix, String name, String descriptor) {
        List<String> chain = chain(store, keyPrefix, name, descriptor);
        return chain.isEmpty() ? descriptor : chain.get(chain.size() - 1);
    }

    /**
     * Records that {@code from} grows into {@code to}, unless a decision for {@code from} is
     * there already.
     *
     * @return the decision Redis holds now: {@code to}, or the one made before
     */
    public static String decide(BitmapStore store, String keyPrefix, String name, String from, String to) {
        checkArgument(grows(from, to), "resize of filter '%s' from %s to %s does not grow it", name, from, to);
        String key = key(keyPrefix, name, from);
        // No expiry, so that no volatile-* maxmemory-policy evicts it: a restart reads it to come up grown.
        if (store.setIfAbsent(key, to, null)) {
            return to;
        }
        return store.get(key).orElse(to);
    }

    /** True when {@code to} has more expected insertions than {@code from}, and the same fpp, key type and hash. */
    static boolean grows(String from, String to) {
        try {
            FilterGeometry before = GenerationDescriptor.geometry(from);
            FilterGeometry after = GenerationDescriptor.geometry(to);
            return after.expectedInsertions() > before.expectedInsertions() && after.fpp() == before.fpp()
                    && Objects.equals(GenerationDescriptor.keyType(from), GenerationDescriptor.keyType(to))
                    && GenerationDescriptor.hashId(from).equals(GenerationDescriptor.hashId(to));
        }
        catch (RuntimeException ex) {
            return false;
        }
    }

    /**
     * How a filter grows: expected insertions doubled until the keys loaded fill at most half of
     * them ({@code n' = n * 2^j}, the smallest {@code j >= 1} with {@code keys <= n' / 2}), so that
     * the filter has room to double again before the next resize; the fpp stays. Shards: as many
     * as keep each under {@code maxShardBits}, and never fewer than before. The grown filter must
     * fit {@code maxFilterBytes}; beyond it, the largest doubling that does, and none when even
     * one doubling does not fit.
     *
     * @param maxFilterBytes the largest filter allowed ({@code bloom-guard.max-filter-size})
     * @param maxShardBits the largest shard ({@code bloom-guard.max-shard-size}, in bits)
     */
    public record Policy(long maxFilterBytes, long maxShardBits) {

        public Policy {
            checkArgument(maxFilterBytes > 0, "maximum filter size (%s bytes) must be positive", maxFilterBytes);
            checkArgument(maxShardBits >= 64 && maxShardBits <= FilterGeometry.MAX_BITS,
                    "maximum shard size (%s bits) must be in [64, %s]", maxShardBits, FilterGeometry.MAX_BITS);
        }

        /** The geometry {@code current} grows into once loaded with {@code keys}; empty when it cannot grow. */
        public Optional<FilterGeometry> grow(FilterGeometry current, long keys) {
            long base = current.expectedInsertions();
            long target = base;
            try {
                do {
                    target = Math.multiplyExact(target, 2);
                }
                while (keys > target / 2);
            }
            catch (ArithmeticException ex) {
                target = Long.MAX_VALUE / 2;
            }
            for (; target > base; target /= 2) {
                Optional<FilterGeometry> grown = geometry(target, current);
                if (grown.isPresent()) {
                    return grown;
                }
            }
            return Optional.empty();
        }

        private Optional<FilterGeometry> geometry(long expectedInsertions, FilterGeometry current) {
            try {
                FilterGeometry sharded = FilterGeometry.sharded(expectedInsertions, current.fpp(), maxShardBits);
                FilterGeometry grown = sharded.shards() >= current.shards() ? sharded
                        : FilterGeometry.withShards(expectedInsertions, current.fpp(), current.shards());
                return grown.totalByteSize() <= maxFilterBytes ? Optional.of(grown) : Optional.empty();
            }
            catch (IllegalArgumentException ex) {
                return Optional.empty();
            }
        }
    }
}
