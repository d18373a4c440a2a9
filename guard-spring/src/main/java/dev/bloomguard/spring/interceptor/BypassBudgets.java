package dev.bloomguard.spring.interceptor;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.bloomguard.core.check.BypassBudget;

/**
 * The bypass budget of each filter on this instance ({@code bloom-guard.filters.<name>.bypass.*}),
 * made on the first check of the filter and shared by every guarded method that names it: the
 * budget bounds what reaches the filter's data, whichever method asks. On {@code System.nanoTime},
 * the clock {@link GuardChecks} times its checks with, so a passed answer hands the budget the time
 * the check already read.
 */
final class BypassBudgets {

    /**
     * One filter's budget and what a call beyond it does.
     *
     * @param allowedWhenExhausted {@code when-exhausted: allow}: the call goes through, counted
     */
    record FilterBudget(BypassBudget budget, boolean allowedWhenExhausted) {
    }

    private final BloomOperationSource.FilterCatalog catalog;
    private final Map<String, FilterBudget> budgets = new ConcurrentHashMap<>();

    BypassBudgets(BloomOperationSource.FilterCatalog catalog) {
        this.catalog = catalog;
    }

    /** The budget of {@code filter}, made from its settings the first time. */
    FilterBudget of(String filter) {
        FilterBudget budget = budgets.get(filter);
        return budget != null ? budget : budgets.computeIfAbsent(filter, this::create);
    }

    private FilterBudget create(String filter) {
        Double maxRate = catalog.bypassMaxRate(filter);
        BypassBudget budget = maxRate == null ? BypassBudget.learning(System::nanoTime)
                : BypassBudget.fixed(maxRate, System::nanoTime);
        return new FilterBudget(budget, catalog.bypassAllowedWhenExhausted(filter));
    }
}
