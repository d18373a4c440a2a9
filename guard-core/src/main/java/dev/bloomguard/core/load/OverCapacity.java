package dev.bloomguard.core.load;

import java.util.Locale;
import java.util.Optional;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.FilterStatus;
import dev.bloomguard.core.context.FilterContext;
import dev.bloomguard.core.rollout.FilterGenerations;
import dev.bloomguard.core.rollout.FilterResize;
import dev.bloomguard.core.rollout.GenerationDescriptor;

/**
 * What a load does on finding more keys than the filter was sized for: it warns, once per load
 * and not per check (such a filter answers "maybe present" for more absent keys than configured,
 * so it shields the database less), and with auto-resize it records the larger generation to grow into.
 */
final class OverCapacity {

    private final FilterContext filter;
    private final String keyPrefix;
    /** Null: auto-resize off. */
    private final FilterResize.Policy resizePolicy;

    OverCapacity(FilterContext filter, String keyPrefix, FilterResize.Policy resizePolicy) {
        this.filter = filter;
        this.keyPrefix = keyPrefix;
        this.resizePolicy = resizePolicy;
    }

    /**
     * @param count the keys the load read
     * @param populations each shard's set bits as built in memory, its marker counted
     */
    void afterLoad(long count, long[] populations) {
        FilterGeometry geometry = filter.geometry();
        long setBits = 0;
        for (long population : populations) {
            setBits += population - 1;
        }
        double estimatedFpp = Math.pow((double) setBits / geometry.totalBits(), geometry.hashes());
        if (!FilterStatus.overCapacity(geometry, count, estimatedFpp)) {
            return;
        }
        filter.log().warn("Filter '{}' was loaded with {} keys for expected-insertions {} (estimated fpp {}, configured"
                + " {}): it lets more absent keys through than configured; raise its expected-insertions", filter.name(),
                count, geometry.expectedInsertions(), String.format(Locale.ROOT, "%.4g", estimatedFpp), geometry.fpp());
        if (resizePolicy != null) {
            resize(count);
        }
    }

    /**
     * Records in Redis the larger generation the filter grows into, unless one is recorded already
     * (which every instance then adopts, whatever its own count). Nothing switches here:
     * {@link FilterGenerations} writes to the grown generation, has it loaded once a load covers
     * every instance, and then answers from it.
     */
    private void resize(long count) {
        FilterGeometry geometry = filter.geometry();
        Optional<FilterGeometry> grown = resizePolicy.grow(geometry, count);
        if (grown.isEmpty()) {
            filter.log().warn("Filter '{}' cannot be resized beyond expected-insertions {}: twice that exceeds"
                    + " bloom-guard.max-filter-size ({} bytes); raise it, or the shard limit, to let auto-resize grow it",
                    filter.name(), geometry.expectedInsertions(), resizePolicy.maxFilterBytes());
            return;
        }
        String from = GenerationDescriptor.of(geometry, filter.keyType(), filter.hash().id());
        String to = GenerationDescriptor.of(grown.get(), filter.keyType(), filter.hash().id());
        try {
            String decided = FilterResize.decide(filter.store(), keyPrefix, filter.name(), from, to);
            if (decided.equals(to)) {
                filter.log().warn("Filter '{}': auto-resize grows it from expected-insertions {} to {} ({} shards, {}"
                        + " bytes) for the {} keys loaded; every instance writes to the larger generation, which is"
                        + " loaded and answers once every instance has written to it for the journal's retention",
                        filter.name(), geometry.expectedInsertions(), grown.get().expectedInsertions(),
                        grown.get().shards(), grown.get().totalByteSize(), count);
            }
            else {
                filter.log().info("Filter '{}': auto-resize already decided to grow it into {}", filter.name(), decided);
            }
        }
        catch (RuntimeException ex) {
            filter.log().warn("Filter '{}': could not record its resize in Redis ({}); the next load that finds it over"
                    + " capacity tries again", filter.name(), ex.getMessage());
        }
    }
}
