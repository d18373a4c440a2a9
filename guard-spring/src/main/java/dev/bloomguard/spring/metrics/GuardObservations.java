package dev.bloomguard.spring.metrics;

/**
 * Where the interceptor opens an observation (a span, for a tracer) around each check and put,
 * closed with its outcome. Free of Micrometer types, so the interceptor loads without it.
 *
 * <p>The one thing not to get wrong: this is on the hot path. When nothing observes,
 * {@link #check} and {@link #put} return {@link Pending#NONE}, a constant, and a call allocates
 * nothing for it.
 */
public interface GuardObservations {

    /** Observes nothing; used when there is no ObservationRegistry. */
    GuardObservations NONE = new GuardObservations() {
        @Override
        public Pending check(String filter) {
            return Pending.NONE;
        }

        @Override
        public Pending put(String filter) {
            return Pending.NONE;
        }
    };

    /** Opens the observation of one check of {@code filter}, before the filter is asked. */
    Pending check(String filter);

    /** Opens the observation of one {@code @BloomPut} add to {@code filter}. */
    Pending put(String filter);

    /** One observation under way; stop it exactly once. */
    interface Pending {

        /** Stands for an observation nobody watches. */
        Pending NONE = (outcome, error) -> {
        };

        /**
         * @param outcome a check's {@code passed}, {@code blocked}, {@code bypassed}, {@code shed}
         *     or {@code failed} (the guard threw); a put's {@code added} or {@code failed}
         * @param error what went wrong, or null
         */
        void stop(String outcome, Throwable error);
    }
}
