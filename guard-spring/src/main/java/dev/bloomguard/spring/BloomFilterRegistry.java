package dev.bloomguard.spring;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import dev.bloomguard.core.filter.RedisBloomFilter;

/**
 * Every filter declared under {@code bloom-guard.filters}, by name: inject it to check, add or
 * load keys programmatically.
 */
public final class BloomFilterRegistry implements AutoCloseable {

    private final Map<String, RedisBloomFilter> filters;

    public BloomFilterRegistry(Map<String, RedisBloomFilter> filters) {
        this.filters = Collections.unmodifiableMap(new LinkedHashMap<>(filters));
    }

    /**
     * @throws IllegalArgumentException naming the configured filters when {@code name} is not one
     */
    public RedisBloomFilter filter(String name) {
        RedisBloomFilter filter = filters.get(name);
        if (filter == null) {
            throw new IllegalArgumentException("No filter named '" + name + "' under bloom-guard.filters; configured: "
                    + filters.keySet());
        }
        return filter;
    }

    public boolean contains(String name) {
        return filters.containsKey(name);
    }

    public Set<String> names() {
        return filters.keySet();
    }

    public Map<String, RedisBloomFilter> asMap() {
        return filters;
    }

    /** Closes every filter's mirror subscription; Spring calls it when the context closes. */
    @Override
    public void close() {
        filters.values().forEach(RedisBloomFilter::close);
    }
}
