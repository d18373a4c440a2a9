package dev.bloomguard.spring;

/**
 * Thrown instead of invoking a {@link BloomGuard @BloomGuard} method whose key the filter says
 * is definitely absent ({@code on-absent: throw}). Rendered as HTTP 404 under Spring MVC and Spring WebFlux.
 *
 * <p>The message names the filter and the method but never the key: keys are user ids, emails
 * and tokens, and exception messages end up in logs.
 */
public class BloomGuardRejectedException extends BloomGuardException {

    private static final long serialVersionUID = 1L;

    private final String filter;

    public BloomGuardRejectedException(String filter, String method) {
        super("Key is not in filter '" + filter + "'; " + method + " was not invoked");
        this.filter = filter;
    }

    /** The name of the filter that rejected the key. */
    public String getFilter() {
        return filter;
    }
}
