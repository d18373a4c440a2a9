package dev.bloomguard.spring.metrics;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

/**
 * {@link GuardObservations} on Micrometer's Observation API: {@code bloomguard.check} and
 * {@code bloomguard.put}, with the low-cardinality key values {@code filter} and {@code outcome}.
 * Started inside whatever observation is current (the HTTP request's, say), so a rejected
 * request shows in its trace as a {@code bloomguard.check} with {@code outcome=blocked}.
 *
 * <p>A registry with no handler is a no-op ({@link ObservationRegistry#isNoop()}): asked once per
 * call, it makes the call allocate nothing here. With Boot's default meter handler each
 * observation is also a timer of the same name.
 */
public final class MicrometerGuardObservations implements GuardObservations {

    private final ObservationRegistry registry;

    public MicrometerGuardObservations(ObservationRegistry registry) {
        this.registry = registry;
    }

    @Override
    public Pending check(String filter) {
        return start(BloomGuardMetricNames.CHECK_OBSERVATION, "bloomguard check", filter);
    }

    @Override
    public Pending put(String filter) {
        return start(BloomGuardMetricNames.PUT_OBSERVATION, "bloomguard put", filter);
    }

    private Pending start(String name, String contextualName, String filter) {
        if (registry.isNoop()) {
            return Pending.NONE;
        }
        Observation observation = Observation.createNotStarted(name, registry);
        if (observation.isNoop()) {
            // Switched off by an ObservationPredicate.
            return Pending.NONE;
        }
        observation.contextualName(contextualName)
                .lowCardinalityKeyValue(BloomGuardMetricNames.TAG_FILTER, filter)
                .start();
        return (outcome, error) -> {
            if (error != null) {
                observation.error(error);
            }
            observation.lowCardinalityKeyValue(BloomGuardMetricNames.TAG_OUTCOME, outcome).stop();
        };
    }
}
