package dev.bloomguard.spring.interceptor;

import java.util.List;
import java.util.function.Supplier;

/**
 * What the annotations of one method ask for, resolved and validated once.
 *
 * @param guard the check before the call, or null
 * @param put the add after the call, or null
 * @param returns how the method's result arrives: a value, a {@code CompletionStage}, or a
 *     reactive type to guard without blocking
 */
record BloomOperations(Guard guard, Put put, ReturnKind returns) {

    /**
     * @param emptyResult what a rejected call returns, or null to throw
     * @param singleFlight whether concurrent admitted calls with equal arguments share one call ({@link SingleFlight})
     * @param missExceptions null when the filter does not remember misses; otherwise the exception
     *     types that, thrown by the method, mean "not found" as an empty result does
     */
    record Guard(String filter, KeyExpression key, Supplier<Object> emptyResult, String method, boolean singleFlight,
            List<Class<? extends Throwable>> missExceptions) {

        /** Whether the filter remembers misses of this method's keys. */
        boolean remembersMisses() {
            return missExceptions != null;
        }

        /** Whether {@code error}, thrown by the method, means the key was not found. */
        boolean meansNotFound(Throwable error) {
            if (missExceptions == null) {
                return false;
            }
            for (Class<? extends Throwable> type : missExceptions) {
                if (type.isInstance(error)) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * @param singleFlight whether the filter has {@code single-flight}: the put then ends the
     *     joining of flights that may have missed its row ({@link SingleFlight#writing})
     */
    record Put(String filter, KeyExpression key, String method, boolean singleFlight) {
    }
}
