package dev.bloomguard.spring.metrics;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.CircuitBreaker;
import dev.bloomguard.core.redis.CircuitBreaker.State;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * {@code bloomguard.circuit.transitions}, tags {@code from} and {@code to} ({@code closed},
 * {@code open}, {@code half-open}): each transition of the store's breaker counted once. It hears
 * the store, not the filters: every filter of the store tells the same transition, and counting
 * theirs would count it once per filter. Closing it stops the counting.
 */
public final class CircuitTransitionCounter implements AutoCloseable {

    private final Map<State, Map<State, Counter>> counters = new EnumMap<>(State.class);
    private final CircuitBreaker.Subscription subscription;

    public CircuitTransitionCounter(MeterRegistry registry, BitmapStore store) {
        // Registered up front, so that every transition shows as zero before the first.
        transition(registry, State.CLOSED, State.OPEN);
        transition(registry, State.OPEN, State.HALF_OPEN);
        transition(registry, State.HALF_OPEN, State.OPEN);
        transition(registry, State.HALF_OPEN, State.CLOSED);
        transition(registry, State.OPEN, State.CLOSED);
        this.subscription = store.onCircuitTransition(this::count);
    }

    private void transition(MeterRegistry registry, State from, State to) {
        counters.computeIfAbsent(from, state -> new EnumMap<>(State.class)).put(to,
                Counter.builder(BloomGuardMetricNames.CIRCUIT_TRANSITIONS)
                        .description("Transitions of the circuit breaker in front of Redis")
                        .tag(BloomGuardMetricNames.TAG_FROM, tag(from))
                        .tag(BloomGuardMetricNames.TAG_TO, tag(to))
                        .register(registry));
    }

    private void count(State from, State to) {
        Map<State, Counter> byTarget = counters.get(from);
        Counter counter = byTarget == null ? null : byTarget.get(to);
        if (counter != null) {
            counter.increment();
        }
    }

    /** {@code closed}, {@code open}, {@code half-open}: lower case, as every tag value of the starter. */
    static String tag(State state) {
        return state.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    @Override
    public void close() {
        subscription.close();
    }
}
