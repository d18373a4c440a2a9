package dev.bloomguard.core.hash;

import static dev.bloomguard.core.internal.Arguments.checkArgument;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Optional;

/**
 * The hash that spreads a filter's keys over its bits, and so part of the filter's stored identity.
 *
 * <ul>
 *   <li>{@link Algorithm#MURMUR3}: Guava's {@code murmur3_128} with seed 0, the default. It is
 *       public, so anyone who knows a filter's geometry (it is in the key names) can compute
 *       offline which absent keys it lets through.</li>
 *   <li>{@link Algorithm#SIPHASH}: SipHash-2-4 keyed by a 128-bit secret over the same canonical
 *       bytes. Without the secret, the false positives of a filter can only be found by probing it.
 *       The first 64-bit value of Guava-style double hashing is the SipHash-2-4 output (what Guava's
 *       {@code Hashing.sipHash24(k0, k1)} returns), the second is that value through murmur3's
 *       64-bit finaliser (a bijection, so it adds no weakness and costs one SipHash, not two).</li>
 * </ul>
 *
 * <p>The secret is 16 bytes; as in the SipHash paper, {@code k0} is the little-endian long of its
 * first 8 bytes and {@code k1} of the last 8. Its text form is 32 hexadecimal digits. A filter's key
 * names carry {@link #id()}: {@code sip-} and 8 hex digits of a SHA-256 fingerprint of the secret,
 * never the secret itself, so bits hashed under one secret are never read under another.
 *
 * <p>The one thing easy to get wrong: {@link #toString()} and every message here leave the secret
 * out; a secret in a log or an exception is a secret an attacker can read.
 */
public final class KeyHash {

    /** Which function: the {@code bloom-guard.filters.<name>.hash} values. */
    public enum Algorithm {
        /** Guava's murmur3_128, seed 0: public, bit-compatible with Guava's BloomFilter (default). */
        MURMUR3,
        /** SipHash-2-4 keyed by a 128-bit secret: false positives cannot be computed offline. */
        SIPHASH;

        /** The property value: {@code murmur3} or {@code siphash}. */
        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Length of a secret's text form: 32 hex digits, 128 bits. */
    public static final int SECRET_HEX_DIGITS = 32;

    private static final String MURMUR3_ID = "murmur3";
    private static final String SIPHASH_ID_PREFIX = "sip-";
    private static final KeyHash MURMUR3 = new KeyHash(Algorithm.MURMUR3, 0, 0, MURMUR3_ID, null);
    private static final SecureRandom SECRETS = new SecureRandom();

    private final Algorithm algorithm;
    private final long k0;
    private final long k1;
    private final String id;
    private final String secret;

    private KeyHash(Algorithm algorithm, long k0, long k1, String id, String secret) {
        this.algorithm = algorithm;
        this.k0 = k0;
        this.k1 = k1;
        this.id = id;
        this.secret = secret;
    }

    /** Guava's murmur3_128, seed 0: today's hash and the default. */
    public static KeyHash murmur3() {
        return MURMUR3;
    }

    /**
     * SipHash-2-4 keyed by {@code secret}: 32 hexadecimal digits (128 bits), either case.
     *
     * @throws IllegalArgumentException when the secret has another form; the message gives its
     *     length and never its text
     */
    public static KeyHash sipHash(String secret) {
        checkArgument(isValidSecret(secret), "a hash secret must be %s hexadecimal digits (128 bits); got %s",
                SECRET_HEX_DIGITS, secret == null ? "none" : secret.length() + " characters"
                        + (secret.length() == SECRET_HEX_DIGITS ? " that are not all hexadecimal digits" : ""));
        String text = secret.toLowerCase(Locale.ROOT);
        byte[] bytes = HexFormat.of().parseHex(text);
        return new KeyHash(Algorithm.SIPHASH, littleEndianLong(bytes, 0), littleEndianLong(bytes, 8),
                SIPHASH_ID_PREFIX + fingerprint(bytes), text);
    }

    /** True when {@code secret} is 32 hexadecimal digits. */
    public static boolean isValidSecret(String secret) {
        return secret != null && secret.length() == SECRET_HEX_DIGITS && secret.chars().allMatch(
                c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'));
    }

    /** A fresh random secret from a {@link SecureRandom}, as 32 lower-case hex digits. */
    public static String newSecret() {
        byte[] bytes = new byte[SECRET_HEX_DIGITS / 2];
        SECRETS.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    /** True when {@code id} is one that {@link #id()} can return: {@code murmur3} or {@code sip-} and 8 hex digits. */
    public static boolean isValidId(String id) {
        return MURMUR3_ID.equals(id) || (id != null && id.matches(SIPHASH_ID_PREFIX + "[0-9a-f]{8}"));
    }

    public Algorithm algorithm() {
        return algorithm;
    }

    /**
     * The secret as 32 lower-case hex digits, to store it in Redis for the other instances; empty
     * for murmur3. Never log it, nor put it in a message.
     */
    public Optional<String> secret() {
        return Optional.ofNullable(secret);
    }

    /**
     * The hash's name in Redis key names and rollout descriptors: {@code murmur3}, or {@code sip-}
     * and the first 8 hex digits of SHA-256("bloom-guard siphash secret:" + secret bytes). Two
     * secrets share one with probability 2^-32; the 32 bits leave 96 of the secret unknown.
     */
    public String id() {
        return id;
    }

    /**
     * Hashes {@code bytes[0 .. length)} into two 64-bit values for double hashing: returns the
     * first, writes the second to {@code second[0]}.
     */
    long hash(byte[] bytes, int length, long[] second) {
        if (algorithm == Algorithm.MURMUR3) {
            return Murmur3.hash(bytes, length, second);
        }
        long first = sipHash24(k0, k1, bytes, length);
        second[0] = Murmur3.fmix64(first);
        return first;
    }

    /**
     * SipHash-2-4 of {@code data[0 .. length)}, 64-bit output: the reference algorithm
     * (Aumasson and Bernstein, 2012), written out without allocating, as the check path needs.
     */
    static long sipHash24(long k0, long k1, byte[] data, int length) {
        long v0 = 0x736f6d6570736575L ^ k0;
        long v1 = 0x646f72616e646f6dL ^ k1;
        long v2 = 0x6c7967656e657261L ^ k0;
        long v3 = 0x7465646279746573L ^ k1;
        int blocks = length & ~7;
        int at = 0;
        long last = (long) length << 56;
        while (true) {
            long m;
            boolean lastBlock = at == blocks;
            if (lastBlock) {
                m = last;
                for (int i = length - 1; i >= blocks; i--) {
                    m |= (data[i] & 0xffL) << ((i - blocks) * 8);
                }
            }
            else {
                m = littleEndianLong(data, at);
                at += 8;
            }
            v3 ^= m;
            for (int round = 0; round < 2; round++) {
                v0 += v1;
                v2 += v3;
                v1 = Long.rotateLeft(v1, 13);
                v3 = Long.rotateLeft(v3, 16);
                v1 ^= v0;
                v3 ^= v2;
                v0 = Long.rotateLeft(v0, 32);
                v2 += v1;
                v0 += v3;
                v1 = Long.rotateLeft(v1, 17);
                v3 = Long.rotateLeft(v3, 21);
                v1 ^= v2;
                v3 ^= v0;
                v2 = Long.rotateLeft(v2, 32);
            }
            v0 ^= m;
            if (lastBlock) {
                break;
            }
        }
        v2 ^= 0xff;
        for (int round = 0; round < 4; round++) {
            v0 += v1;
            v2 += v3;
            v1 = Long.rotateLeft(v1, 13);
            v3 = Long.rotateLeft(v3, 16);
            v1 ^= v0;
            v3 ^= v2;
            v0 = Long.rotateLeft(v0, 32);
            v2 += v1;
            v0 += v3;
            v1 = Long.rotateLeft(v1, 17);
            v3 = Long.rotateLeft(v3, 21);
            v1 ^= v2;
            v3 ^= v0;
            v2 = Long.rotateLeft(v2, 32);
        }
        return v0 ^ v1 ^ v2 ^ v3;
    }

    private static String fingerprint(byte[] secret) {
        try {
            MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
            sha256.update("bloom-guard siphash secret:".getBytes(StandardCharsets.US_ASCII));
            return HexFormat.of().formatHex(sha256.digest(secret), 0, 4);
        }
        catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("every Java platform has SHA-256", ex);
        }
    }

    private static long littleEndianLong(byte[] bytes, int at) {
        return (bytes[at] & 0xffL) | (bytes[at + 1] & 0xffL) << 8 | (bytes[at + 2] & 0xffL) << 16
                | (bytes[at + 3] & 0xffL) << 24 | (bytes[at + 4] & 0xffL) << 32 | (bytes[at + 5] & 0xffL) << 40
                | (bytes[at + 6] & 0xffL) << 48 | (bytes[at + 7] & 0xffL) << 56;
    }

    /** Same function and, for siphash, same secret. */
    @Override
    public boolean equals(Object other) {
        return other instanceof KeyHash that && algorithm == that.algorithm && k0 == that.k0 && k1 == that.k1;
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }

    /** {@code murmur3} or {@code siphash[sip-1a2b3c4d]}: never the secret. */
    @Override
    public String toString() {
        return algorithm == Algorithm.MURMUR3 ? MURMUR3_ID : "siphash[" + id + "]";
    }
}
