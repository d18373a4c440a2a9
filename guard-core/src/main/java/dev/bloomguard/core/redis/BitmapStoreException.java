package dev.bloomguard.core.redis;

/** Redis failed, refused or did not answer in time. */
public final class BitmapStoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public BitmapStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
