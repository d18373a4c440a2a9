package dev.bloomguard.core.filter;


/**
 * Hears a filter's {@link FilterEvent}s; registered with {@link FilterSetup#listener}.
 *
 * <p>Called on the thread that saw the event: a request's checking thread, a Redis client's I/O
 * thread (an asynchronous check or add), a load's thread. So it must return at once and never wait
 * for Redis: hand any work to an executor of its own. What it throws is logged and dropped; the
 * check, add or load goes on as if it had not been told.
 */
@FunctionalInterface
public interface FilterListener {

    void onEvent(FilterEvent event);
}
