package dev.bloomguard.core.rollout;

import java.time.Duration;
import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.FilterKeys;
import dev.bloomguard.core.Hold;
import dev.bloomguard.core.hash.KeyHash;
import dev.bloomguard.core.hash.KeyType;

/**
 * What a rolling change needs of one generation of a filter: its identity in Redis (geometry,
 * key type, hash and keys), whether its bitmap is complete, its adds, and the reasons it holds
 * (a generation loaded from another source is held). The façade's filter is one; the rollout
 * never sees the rest of it, so that it sits below the façade and not in a circle with it.
 */
public interface Generation extends AutoCloseable {

    String name();

    FilterGeometry geometry();

    FilterKeys keys();

    Optional<KeyType> keyType();

    KeyHash hash();

    Duration journalRetention();

    /** True when every shard's ready marker is set; empty when Redis could not be read. */
    Optional<Boolean> isComplete();

    void addAll(Collection<?> keys);

    CompletableFuture<Void> addAllAsync(Collection<?> keys);

    void hold(Hold reason);

    void release(Hold reason);

    /** Whether Redis went back in time under this generation; see the façade. */
    boolean verifyNotBehind();

    @Override
    void close();
}
