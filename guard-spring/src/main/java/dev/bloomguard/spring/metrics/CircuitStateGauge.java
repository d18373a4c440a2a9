package dev.bloomguard.spring.metrics;

import dev.bloomguard.core.redis.BitmapStore;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * {@code bloomguard.circuit.state}: 0 closed, 1 half-open, 2 open. Without a {@code filter} tag:
 * one store, and so one breaker, fronts the application's Redis for every filter; a filter tag
 * would repeat the same value once per filter. Reading it asks the breaker, never Redis.
 */
public final class CircuitStateGauge {

    public CircuitStateGauge(MeterRegistry registry, BitmapStore store) {
        Gauge.builder(BloomGuardMetricNames.CIRCUIT_STATE, store, CircuitStateGauge::value)
                .description("Circuit breaker in front of Redis: 0 closed, 1 half-open, 2 open")
                .strongReference(true)
                .register(registry);
    }

    private static double value(BitmapStore store) {
        return switch (store.circuitState()) {
            case CLOSED -> 0;
            case HALF_OPEN -> 1;
            case OPEN -> 2;
        };
    }
}
