package dev.bloomguard.core.load;

import java.util.Map;

import dev.bloomguard.core.FilterKeys;
import dev.bloomguard.core.context.FilterContext;
import dev.bloomguard.core.rollout.FilterGenerations;
import dev.bloomguard.core.rollout.GenerationDescriptor;

/**
 * What the live generations of a filter hold, as a load compares itself with them: the filter's
 * own, and every generation its rollout registry names (each instance of a rolling change or of
 * an auto-resize registers its own, whichever generation this load is of).
 */
final class LiveGenerations {

    private LiveGenerations() {
    }

    /**
     * The most keys a load of any live generation of {@code filter}'s name read from its source;
     * 0 when none recorded one. Throws {@code BitmapStoreException} when Redis does not answer:
     * a load that cannot compare is not swapped in.
     */
    static long largestLoad(FilterContext filter, String keyPrefix) {
        long largest = LiveMeta.read(filter).keys().orElse(0L);
        Map<String, String> registry = filter.store()
                .hashGetAll(FilterGenerations.generationsKey(keyPrefix, filter.name()));
        for (String descriptor : registry.keySet()) {
            FilterKeys keys;
            try {
                keys = FilterKeys.of(keyPrefix, filter.name(), GenerationDescriptor.geometry(descriptor),
                        GenerationDescriptor.keyType(descriptor), GenerationDescriptor.hashId(descriptor));
            }
            catch (RuntimeException ex) {
                continue; // a descriptor of a later release, or damaged: it names no keys this release can read
            }
            long loaded = LiveMeta.of(filter.store().hashGetAll(keys.meta())).keys().orElse(0L);
            largest = Math.max(largest, loaded);
        }
        return largest;
    }
}
