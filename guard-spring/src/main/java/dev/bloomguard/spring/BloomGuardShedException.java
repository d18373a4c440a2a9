package dev.bloomguard.spring;

import java.time.Duration;

/**
 * Thrown instead of invoking a {@link BloomGuard @BloomGuard} method when the filter could not
 * answer (Redis failing or too slow, the circuit open, the filter not loaded, answering suspended)
 * and the filter's bypass budget on this instance is spent ({@code bypass.when-exhausted: shed}):
 * the call is shed so that a flood does not reach the database while the guard is blind. Rendered
 * as HTTP 503 with a {@code Retry-After} header under Spring MVC and Spring WebFlux.
 *
 * <p>What a reader could get wrong: this is not a rejection. Nothing is known about the key, which
 * may well exist; so a shed call is never turned into an empty result, whatever {@code on-absent}
 * says, and it does not extend {@link BloomGuardRejectedException}: a handler of rejections (a 404)
 * must not answer it. The message names the filter, the reason and the method, never the key.
 */
public class BloomGuardShedException extends BloomGuardException {

    private static final long serialVersionUID = 1L;

    private final String filter;
    private final String reason;
    private final Duration retryAfter;

    /**
     * @param reason why the filter could not answer, as the {@code reason} tag of
     *     {@code bloomguard.checks} names it: {@code redis-error}, {@code circuit-open},
     *     {@code not-ready} or {@code suspended}
     * @param retryAfter when the caller may try again
     */
    public BloomGuardShedException(String filter, String reason, String method, Duration retryAfter) {
        super("Filter '" + filter + "' could not answer (" + reason + ") and its bypass budget is spent; " + method
                + " was not invoked");
        this.filter = filter;
        this.reason = reason;
        this.retryAfter = retryAfter;
    }

    /** The name of the filter whose budget shed the call. */
    public String getFilter() {
        return filter;
    }

    /** Why the filter could not answer: {@code redis-error}, {@code circuit-open}, {@code not-ready} or {@code suspended}. */
    public String getReason() {
        return reason;
    }

    /** When the caller may try again: the budget refills continuously, a second's worth per second. */
    public Duration getRetryAfter() {
        return retryAfter;
    }
}
