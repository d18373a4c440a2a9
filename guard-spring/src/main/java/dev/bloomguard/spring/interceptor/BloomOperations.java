package dev.bloomguard.spring.interceptor;

import java.util.function.Supplier;

/**
 * What the annotations of one method ask for, resolved and validated once.
 *
 * @param guard the check before the call, or null
 * @param put the add after the call, or null
 * @param shape whether the method returns a value, or a {@code Mono}/{@code Flux} to guard without blocking
 */
record BloomOperations(Guard guard, Put put, Shape shape) {

    /** What the method returns, as far as the guard cares. */
    enum Shape {
        /** A value (or nothing): checked and added on the calling thread. */
        PLAIN,
        /** A Project Reactor {@code Mono}: checked and added on subscription, without blocking. */
        MONO,
        /** A Project Reactor {@code Flux}: checked on subscription, each element added, without blocking. */
        FLUX
    }

    /**
     * @param emptyResult what a rejected call returns, or null to throw
     */
    record Guard(String filter, KeyExpression key, Supplier<Object> emptyResult, String method) {
    }

    record Put(String filter, KeyExpression key, String method) {
    }
}
