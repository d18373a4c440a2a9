package dev.bloomguard.core.filter;

import java.util.List;

import dev.bloomguard.core.context.FilterContext;
import dev.bloomguard.core.internal.Arguments;

/**
 * Tells a filter's {@link FilterListener}s of an event, each in turn; one that throws is logged and
 * the others are still told. Not part of the API (see {@link Arguments}).
 */
public final class EventPublisher {

    private final FilterContext filter;
    private final List<FilterListener> listeners;

    public EventPublisher(FilterContext filter, List<FilterListener> listeners) {
        this.filter = filter;
        this.listeners = List.copyOf(listeners);
    }

    public void publish(FilterEvent event) {
        for (FilterListener listener : listeners) {
            try {
                listener.onEvent(event);
            }
            catch (RuntimeException ex) {
                filter.log().warn("Filter '{}': listener failed on {}: {}", filter.name(),
                        event.getClass().getSimpleName(), ex.toString());
            }
        }
    }
}
