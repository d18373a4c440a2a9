package dev.bloomguard.spring.interceptor;

import java.util.function.Supplier;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BloomGuardConfigurationException;
import dev.bloomguard.spring.metrics.GuardMetrics;
import dev.bloomguard.spring.metrics.GuardObservations;

/**
 * The filters, metrics and observations that the checks, the adds and the remembered misses
 * share, each resolved on first use and then kept: the advisor is created while bean post
 * processors are still being registered, and must not create Redis connections or metrics
 * beans that early. Also how an observation closes when its check or add fails, which both
 * sides do alike.
 */
final class GuardDependencies {

    /** Outcomes of observations that {@code CheckOutcome} does not name. */
    static final String ADDED = "added";
    static final String FAILED = "failed";

    private final Supplier<BloomFilterRegistry> registry;
    private final Supplier<GuardMetrics> metrics;
    private final Supplier<GuardObservations> observations;
    private volatile BloomFilterRegistry resolvedRegistry;
    private volatile GuardMetrics resolvedMetrics;
    private volatile GuardObservations resolvedObservations;

    GuardDependencies(Supplier<BloomFilterRegistry> registry, Supplier<GuardMetrics> metrics,
            Supplier<GuardObservations> observations) {
        this.registry = registry;
        this.metrics = metrics;
        this.observations = observations;
    }

    RedisBloomFilter filter(String name) {
        return registry().filter(name);
    }

    /**
     * @throws BloomGuardConfigurationException when there are no filters to guard with
     */
    void resolve() {
        try {
            registry();
        }
        catch (RuntimeException ex) {
            throw new BloomGuardConfigurationException("@BloomGuard and @BloomPut need the bloom-guard filters,"
                    + " which need Redis: a RedisConnectionFactory (spring-boot-starter-data-redis and spring.data.redis.*)"
                    + " or bloom-guard.redis.*: "
                    + ex.getMessage(), ex);
        }
        metrics();
    }

    /** Closes {@code observation} as failed by {@code error} and returns the error to throw. */
    static <E extends RuntimeException> E failed(GuardObservations.Pending observation, E error) {
        observation.stop(FAILED, error);
        return error;
    }

    private BloomFilterRegistry registry() {
        BloomFilterRegistry current = resolvedRegistry;
        if (current == null) {
            current = registry.get();
            resolvedRegistry = current;
        }
        return current;
    }

    GuardObservations observations() {
        GuardObservations current = resolvedObservations;
        if (current == null) {
            current = observations.get();
            resolvedObservations = current;
        }
        return current;
    }

    GuardMetrics metrics() {
        GuardMetrics current = resolvedMetrics;
        if (current == null) {
            current = metrics.get();
            resolvedMetrics = current;
        }
        return current;
    }
}
