package dev.bloomguard.spring;

/** Bloom guard could not do what it was asked, e.g. add a key while Redis is down. */
public class BloomGuardException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public BloomGuardException(String message) {
        super(message);
    }

    public BloomGuardException(String message, Throwable cause) {
        super(message, cause);
    }
}
