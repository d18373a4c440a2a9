package dev.bloomguard.spring.interceptor;

/**
 * What a key expression or a guarded method threw, fit for a log line: the same types and stack
 * frames, none of the messages. A message may quote the caller's input ({@code For input string:
 * "alice@example.com"}, {@code no row for alice@example.com}), and no log line of the guard holds
 * a key, at any level (docs/security.md).
 */
final class WithheldMessages extends RuntimeException {

    /** Deep enough for any real chain; a longer one, or a cycle, ends here. */
    private static final int MOST_CAUSES = 16;

    private WithheldMessages(Throwable original, Throwable cause) {
        super(original.getClass().getName() + " (its message is withheld: it may quote the call's arguments)", cause,
                false, true);
        setStackTrace(original.getStackTrace());
    }

    /** {@code thrown} and its causes, each as its type and stack frames without its message. */
    static Throwable of(Throwable thrown) {
        return of(thrown, MOST_CAUSES);
    }

    private static Throwable of(Throwable thrown, int causesLeft) {
        Throwable cause = thrown.getCause();
        boolean more = cause != null && cause != thrown && causesLeft > 0;
        return new WithheldMessages(thrown, more ? of(cause, causesLeft - 1) : null);
    }
}
