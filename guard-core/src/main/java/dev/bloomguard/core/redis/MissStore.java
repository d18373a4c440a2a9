package dev.bloomguard.core.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Remembered misses ({@code negative-cache}) in Redis: remember, confirm, and forget on an add.
 * The defaults are those of a store that does not remember misses.
 *
 * <p>A role of {@link BitmapStore}; every failure, refusal or timeout is a {@link BitmapStoreException}.
 */
public interface MissStore {

    /**
     * How long an add's {@code addedKey} mark refuses remembers of its key: what
     * {@link #rememberMissAsync} honours and {@link #forgetMissesAsync} is given. Every add sets the
     * mark, whether or not its instance remembers misses.
     */
    Duration ADDED_WINDOW = Duration.ofSeconds(30);

    /**
     * Remembers a key the lookup {@code scope} did not find (see {@code RememberedMisses}): sets
     * field {@code scope} of hash {@code missKey} to the {@code loadedAt} field of {@code metaKey}
     * and the time, {@code ttl} from now, when it ends; unless {@code addedKey} exists (the key was
     * added a moment ago, after the method may have read the database) or the filter has no live
     * load. Nothing is sent once {@link System#nanoTime()} has passed {@code sendByNanos} (a wait
     * for a connection): false. True when remembered.
     */
    default CompletableFuture<Boolean> rememberMissAsync(String missKey, String scope, String addedKey,
            String metaKey, Duration ttl, long sendByNanos) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(
                getClass().getName() + " does not remember misses"));
    }

    /**
     * Whether {@code missKey} still says the key is absent for {@code scope}: its field exists, has
     * not ended, and was written under the live load that {@code metaKey} describes (a swap since
     * then, a rebuild among them, forgets it).
     */
    default CompletableFuture<Boolean> missRememberedAsync(String missKey, String scope, String metaKey,
            Duration timeout) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(
                getClass().getName() + " does not remember misses"));
    }

    /**
     * Forgets remembered misses of keys just added: for each i, first sets {@code addedKeys[i]}
     * (when given: {@code addedKeys} may be empty) for {@code window}, then deletes
     * {@code missKeys[i]}, in that order, so that a remember racing with the add either lands
     * before the delete or sees the added key and gives up. The default does nothing: a store
     * that cannot remember misses has none to forget.
     */
    default CompletableFuture<Void> forgetMissesAsync(List<String> missKeys, List<String> addedKeys,
            Duration window) {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * {@link #forgetMissesAsync}, for a writer that does not remember misses itself: the marks
     * are set only while the {@code missesUntil} field of {@code metaKey} (which every remember
     * moves to its end plus the window) lies ahead, so that a filter nobody remembers misses of
     * gets no marks; the misses are deleted either way. An add without marks records its time in
     * the {@code unmarkedAddAt} field instead, and {@link #rememberMissAsync} takes no remember
     * within the window after it (the first remember of a quiet filter may race such an add).
     * Both fields outlive a swap. Default: nothing, as for forgetting.
     */
    default CompletableFuture<Void> forgetMissesIfInUseAsync(String metaKey, List<String> missKeys,
            List<String> addedKeys, Duration window) {
        return CompletableFuture.completedFuture(null);
    }
}
