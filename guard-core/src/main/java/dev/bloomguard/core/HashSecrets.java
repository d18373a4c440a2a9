package dev.bloomguard.core;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.bloomguard.core.hash.KeyHash;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.BitmapStoreException;

/**
 * Where the secrets of siphash filters live in Redis. A filter's key names carry its secret's
 * fingerprint, so the secret must be known before any bit of it is read or written: at build.
 *
 * <ul>
 * <li>{@code <prefix>:v1:{<filter>}:hash-secret}, no expiry: the secret generated for a filter that
 * configures none. The first instance creates it with {@code SET NX}; every instance, that one
 * included, then uses what Redis holds. Lost (flush, eviction of a volatile-less key under
 * {@code allkeys-*}), the next instance generates another: its fingerprint names other keys, which
 * are not ready until loaded, so checks bypass rather than block.
 * <li>{@code <prefix>:v1:{<filter>}:hash-secret:<sip-fingerprint>}, no expiry: a generated secret,
 * published so that instances of another configuration can write to its generation during a
 * rolling change (they cannot hash for it otherwise). Its instances publish it again at every
 * rollout heartbeat: after Redis lost the generated secret and a new instance generated another,
 * the instances still on the old one can then still be written to.
 * </ul>
 *
 * A <em>configured</em> secret is never written to Redis, where read-only users and backups could
 * read it: the {@code sip-} fingerprint in the key names (8 hex digits of a salted SHA-256) is all
 * Redis learns of it, enough for instances to see that they hash under different secrets. The
 * price: during a rolling change to or from a configured secret, instances of the other
 * configuration cannot write to its generation, so their heartbeat fails and they bypass rather
 * than block until the change is complete. Nothing here logs or puts a secret in a message.
 */
public final class HashSecrets {

    private static final Logger log = LoggerFactory.getLogger(HashSecrets.class);

    /**
     * The secrets read from Redis as a filter's generated secret: the only ones ever published,
     * so that what is written to Redis is never more than what Redis already held. Per filter, and
     * forgotten once the same secret is configured for the filter: an application restarted in the
     * same JVM with its generated secret copied into its configuration must not publish it again.
     */
    private static final Set<Generated> GENERATED = ConcurrentHashMap.newKeySet();

    private record Generated(String keyPrefix, String filterName, KeyHash hash) {
    }

    private HashSecrets() {
    }

    /** The key of the secret generated for {@code filterName}, in the filter's own hash slot. */
    public static String key(String keyPrefix, String filterName) {
        return FilterKeys.filterWide(keyPrefix, filterName, "hash-secret");
    }

    /** The key the secret whose hash id is {@code hashId} is published under. */
    static String publishedKey(String keyPrefix, String filterName, String hashId) {
        return key(keyPrefix, filterName) + ":" + hashId;
    }

    /**
     * Siphash under the secret Redis holds for the filter, generated and stored first if it holds
     * none ({@code SET NX}, then read back, so concurrent first instances agree).
     *
     * @throws BitmapStoreException when Redis cannot be asked: without the secret the filter has no key names
     * @throws IllegalStateException when the key holds something else than a secret
     */
    public static KeyHash stored(BitmapStore store, String keyPrefix, String filterName) {
        String key = key(keyPrefix, filterName);
        if (store.setIfAbsent(key, KeyHash.newSecret(), null)) {
            log.info("Filter '{}': generated a siphash secret and stored it at {}", filterName, key);
        }
        String held = store.get(key).orElseThrow(() -> new BitmapStoreException("the siphash secret of filter '"
                + filterName + "' at " + key + " vanished right after it was stored", null));
        KeyHash hash = fromRedis(held, key);
        GENERATED.add(new Generated(keyPrefix, filterName, hash));
        publish(store, keyPrefix, filterName, hash);
        return hash;
    }

    /**
     * Stores {@code hash}'s secret under its fingerprint unless Redis holds it, when it is a secret
     * {@link #stored} read from Redis (see the class comment); nothing for murmur3 or any other
     * secret, such as a configured one.
     *
     * @throws BitmapStoreException when Redis fails
     */
    public static void publish(BitmapStore store, String keyPrefix, String filterName, KeyHash hash) {
        if (hash.secret().isPresent() && GENERATED.contains(new Generated(keyPrefix, filterName, hash))) {
            store.setIfAbsent(publishedKey(keyPrefix, filterName, hash.id()), hash.secret().get(), null);
        }
    }

    /**
     * Siphash under a configured {@code secret}, which is never written to Redis (see the class
     * comment). A copy published in Redis (the secret was
     * generated there, then copied into the configuration) is deleted; failing that is logged
     * and the hash returned: this instance works all the same.
     *
     * @throws IllegalArgumentException when the secret is not 32 hex digits (the message quotes its length only)
     */
    public static KeyHash configured(BitmapStore store, String keyPrefix, String filterName, String secret) {
        KeyHash hash = KeyHash.sipHash(secret);
        GENERATED.remove(new Generated(keyPrefix, filterName, hash));
        String published = publishedKey(keyPrefix, filterName, hash.id());
        try {
            if (store.get(published).filter(KeyHash::isValidSecret).map(KeyHash::sipHash).filter(hash::equals)
                    .isPresent()) {
                store.delete(published);
                log.info("Filter '{}': deleted the copy of its configured siphash secret ({}) published at {}, where it"
                        + " was kept while it was a generated one", filterName, hash.id(), published);
            }
        }
        catch (RuntimeException ex) {
            log.warn("Filter '{}': could not delete a copy of its configured siphash secret ({}) that may be published"
                    + " at {} ({})", filterName, hash.id(), published, ex.getMessage());
        }
        return hash;
    }

    /**
     * The siphash whose {@link KeyHash#id()} is {@code hashId}, if Redis holds its secret (generated
     * or published); for a generation of another configuration.
     */
    public static Optional<KeyHash> find(BitmapStore store, String keyPrefix, String filterName, String hashId) {
        for (String key : new String[] { key(keyPrefix, filterName), publishedKey(keyPrefix, filterName, hashId) }) {
            Optional<String> held = store.get(key);
            if (held.isPresent()) {
                KeyHash hash = fromRedis(held.get(), key);
                if (hash.id().equals(hashId)) {
                    return Optional.of(hash);
                }
            }
        }
        return Optional.empty();
    }

    private static KeyHash fromRedis(String held, String key) {
        if (!KeyHash.isValidSecret(held)) {
            throw new IllegalStateException("Redis key " + key + " does not hold a siphash secret (32 hexadecimal"
                    + " digits); delete it to have a new one generated (the filter is then loaded anew)");
        }
        return KeyHash.sipHash(held);
    }
}
