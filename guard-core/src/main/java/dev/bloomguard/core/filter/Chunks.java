package dev.bloomguard.core.filter;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;


/**
 * Splits a batch of keys into chunks of a bounded size, sent one after another, so that no
 * caller, however large its batch, makes Redis run one unbounded command (see
 * {@link RedisBloomFilter.Builder#maxBatchSize}).
 */
final class Chunks {

    private Chunks() {
    }

    /** {@code each} chunk's answers, in the order of {@code keys}. */
    static <T> List<T> map(Collection<?> keys, int size, Function<List<?>, List<T>> each) {
        List<?> all = new ArrayList<>(keys);
        List<T> answers = new ArrayList<>(all.size());
        for (int from = 0; from < all.size(); from += size) {
            answers.addAll(each.apply(all.subList(from, Math.min(all.size(), from + size))));
        }
        return answers;
    }

    static void forEach(Collection<?> keys, int size, Consumer<List<?>> each) {
        map(keys, size, chunk -> {
            each.accept(chunk);
            return List.of();
        });
    }

    /** {@link #map} without blocking: each chunk is sent once the one before it has completed. */
    static <T> CompletableFuture<List<T>> mapAsync(Collection<?> keys, int size,
            Function<List<?>, CompletableFuture<List<T>>> each) {
        List<?> all = new ArrayList<>(keys);
        CompletableFuture<List<T>> answers = CompletableFuture.completedFuture(new ArrayList<>(all.size()));
        for (int from = 0; from < all.size(); from += size) {
            List<?> chunk = all.subList(from, Math.min(all.size(), from + size));
            answers = answers.thenCompose(so -> each.apply(chunk).thenApply(more -> {
                so.addAll(more);
                return so;
            }));
        }
        return answers;
    }

    static CompletableFuture<Void> forEachAsync(Collection<?> keys, int size,
            Function<List<?>, CompletableFuture<Void>> each) {
        return mapAsync(keys, size, chunk -> each.apply(chunk).thenApply(done -> List.<Object>of()))
                .thenApply(done -> null);
    }
}
