package dev.bloomguard.spring.metrics;

/** What the audit's lookup of a blocked call found; the {@code result} tag of {@code bloomguard.audits}. */
public enum AuditResult {

    /** The method found what it looked up: the filter blocked a key that exists (a false negative). */
    FOUND("found"),
    /** Nothing found: the block was right. */
    NOT_FOUND("not-found"),
    /** The method threw an exception that does not say "not found": nothing learnt. */
    FAILED("failed"),
    /** The audit's queue was full, the lookup was not made. */
    DROPPED("dropped");

    private final String tag;

    AuditResult(String tag) {
        this.tag = tag;
    }

    public String tag() {
        return tag;
    }
}
