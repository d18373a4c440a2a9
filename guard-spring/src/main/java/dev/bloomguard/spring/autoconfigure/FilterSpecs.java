package dev.bloomguard.spring.autoconfigure;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.mirror.MirrorSettings;
import dev.bloomguard.core.misses.RememberedMisses;

/**
 * The filters of {@code bloom-guard.filters}, validated and converted once, at startup, into what
 * the core takes ({@link FilterSettingsValidator#validate}): a bean of its own, so that the store,
 * the registry and the warmer read one result instead of each converting the properties again,
 * and a bad setting fails the application before any Redis connection is made. The advisor reads
 * the annotations' policies from it too, when it first proxies a bean; it binds only its own order
 * and failure mode itself, being created while bean post processors are registered.
 */
final class FilterSpecs {

    /**
     * One filter as validated.
     *
     * @param settings the filter's properties, for what is read as it is (warmup, rebuild, key type)
     * @param geometry the configured geometry (auto-resize may run a larger one, found in Redis)
     * @param mirror the local mirror's settings, or null when it is off
     * @param misses the remembered misses' settings, or null when {@code negative-cache} is off
     * @param missExceptions the exception types that mean "not found", or null when {@code negative-cache} is off
     */
    record Spec(String name, BloomGuardProperties.Filter settings, FilterGeometry geometry, MirrorSettings mirror,
            RememberedMisses.Settings misses, List<Class<? extends Throwable>> missExceptions) {
    }

    private final Map<String, Spec> specs;

    FilterSpecs(Collection<Spec> specs) {
        Map<String, Spec> byName = new LinkedHashMap<>();
        for (Spec spec : specs) {
            byName.put(spec.name(), spec);
        }
        this.specs = Collections.unmodifiableMap(byName);
    }

    /** Every filter, in the order of {@code bloom-guard.filters}. */
    Collection<Spec> all() {
        return specs.values();
    }
}
