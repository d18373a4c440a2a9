package dev.bloomguard.core.check;

import java.util.function.Consumer;

import dev.bloomguard.core.NotReadyCause;
import dev.bloomguard.core.context.FilterContext;
import dev.bloomguard.core.rollout.FilterGenerations;

/**
 * What a check does on finding no answer it can give: during a rolling change it has the
 * generations looked at again (a Redis read, so in the background, never on the checking thread,
 * whose wait is bounded by the check timeout), and it tells the not-ready listener, the hook that
 * schedules a re-warm.
 */
public final class NotReadySignals {

    private final FilterContext filter;
    private final FilterGenerations<?> generations;
    private final Consumer<NotReadyCause> listener;

    /**
     * @param generations the filter's generations, or null outside a rollout
     * @param listener tells the filter's listeners why it is not ready (a
     *     {@link dev.bloomguard.core.filter.FilterEvent.NotReady}); must return at once
     */
    public NotReadySignals(FilterContext filter, FilterGenerations<?> generations, Consumer<NotReadyCause> listener) {
        this.filter = filter;
        this.generations = generations;
        this.listener = listener;
    }

    /** A reply found the filter missing, incomplete or suspended (or Redis lost adds): look again, and load. */
    public void notReady(NotReadyCause cause) {
        if (generations != null) {
            reconsiderSoon();
        }
        tell(cause);
    }

    /**
     * No generation can answer (see {@link FilterGenerations#answering}): look again soon, and ask
     * for a load when the own generation was never loaded or was lost.
     */
    public void noGenerationAnswers() {
        reconsiderSoon();
        if (generations.ownUnloaded()) {
            tell(NotReadyCause.GENERATION_UNLOADED);
        }
    }

    private void reconsiderSoon() {
        if (generations.reconsiderDue()) {
            filter.background().execute(() -> {
                try {
                    generations.reconsider();
                }
                catch (RuntimeException ex) {
                    filter.log().debug("Filter '{}': could not look at its generation again: {}", filter.name(),
                            ex.getMessage());
                }
            });
        }
    }

    private void tell(NotReadyCause cause) {
        try {
            listener.accept(cause);
        }
        catch (RuntimeException ex) {
            filter.log().warn("Filter '{}': not-ready listener failed: {}", filter.name(), ex.toString());
        }
    }
}
