package dev.bloomguard.spring.interceptor;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;

/**
 * How a key shows in a log line, at any level: never the key itself (keys are user ids, emails,
 * tokens), but its length and a digest, so that lines about one key can be told from lines about
 * another. The thing not to get wrong: the digest is salted with a secret of this process, since
 * a plain hash of a short key (a numeric id) is undone by hashing every candidate; lines compare
 * within one instance's log only.
 */
final class LoggedKeys {

    private static final byte[] SALT = salt();

    private LoggedKeys() {
    }

    /**
     * Makes the salt now, on the calling thread: the interceptor calls it as it is created, since
     * the salt reads the platform's random source, which a Reactor or Lettuce thread must not wait on.
     */
    static void prepare() {
        // Class initialisation has made the salt by the time this runs.
    }

    /** {@code a key of 25 characters (digest 3fa9c2d1e0b4)}, or {@code a batch of 3 keys}. */
    static String describe(Object key) {
        if (key instanceof List<?> batch) {
            return "a batch of " + batch.size() + " keys";
        }
        String text = String.valueOf(key);
        return "a key of " + text.length() + " characters (digest " + digest(text) + ")";
    }

    private static String digest(String text) {
        try {
            MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
            sha256.update(SALT);
            return HexFormat.of().formatHex(sha256.digest(text.getBytes(StandardCharsets.UTF_8)), 0, 6);
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("every Java platform has SHA-256", ex);
        }
    }

    private static byte[] salt() {
        byte[] salt = new byte[16];
        new SecureRandom().nextBytes(salt);
        return salt;
    }
}
