package dev.bloomguard.spring.interceptor;

import dev.bloomguard.core.filter.RedisBloomFilter;

/**
 * The filter a {@code @BloomGuard} or {@code @BloomPut} operation names, resolved on the
 * operation's first call and kept for every call after it, as Spring's cache interceptor keeps an
 * operation's resolved metadata: the registry's filters are made once, at startup, and never
 * replaced (a filter's rolling changes and resizes happen behind the same {@link RedisBloomFilter});
 * with it, for a guard, the filter's bypass budget, which every operation on the filter shares.
 * Resolved on first call, not when the annotation is read, since the advisor reads annotations
 * before the registry, and its Redis connections, may be created.
 */
final class OperationFilter {

    private final String name;
    private volatile RedisBloomFilter resolved;
    private volatile BypassBudgets.FilterBudget budget;

    OperationFilter(String name) {
        this.name = name;
    }

    /** The filter, from {@code dependencies}' registry the first time; two racing first calls resolve the same one. */
    RedisBloomFilter in(GuardDependencies dependencies) {
        RedisBloomFilter current = resolved;
        if (current == null) {
            current = dependencies.filter(name);
            resolved = current;
        }
        return current;
    }

    /** The filter's bypass budget, from {@code budgets} the first time. */
    BypassBudgets.FilterBudget budgetIn(BypassBudgets budgets) {
        BypassBudgets.FilterBudget current = budget;
        if (current == null) {
            current = budgets.of(name);
            budget = current;
        }
        return current;
    }

    @Override
    public String toString() {
        return name;
    }
}
