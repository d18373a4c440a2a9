package dev.bloomguard.core.redis;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/** The default asynchronous form of a store's call: the blocking call, made at once. */
final class Completions {

    private Completions() {
    }

    static <T> CompletableFuture<T> now(Supplier<T> call) {
        try {
            return CompletableFuture.completedFuture(call.get());
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }
}
