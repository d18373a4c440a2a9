package dev.bloomguard.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Adds a key to a Bloom filter after the method returns normally, so that a key created by the
 * method passes the filter from then on.
 *
 * <pre>{@code
 * @BloomPut(filter = "user", key = "#result.id")
 * User save(User user);
 * }</pre>
 *
 * <p>{@link #key()} is SpEL over the arguments and {@code #result}; {@code #result} of an
 * {@code Optional} is its value. A key read from a null result or an empty {@code Optional}
 * ({@code #result.id} included) adds nothing, as does a {@code null} key; a collection or array
 * adds every non-null element.
 *
 * <p>The add runs inside the method's transaction, before the commit (its advice is ordered
 * inside Spring's transaction advice, also when the method itself is {@code @Transactional}).
 * If Redis refuses it (down, {@code READONLY}, {@code OOM}, an open circuit) while a transaction
 * is active, the call fails with {@link BloomGuardException} and the row rolls back. Where no
 * transaction is active (the row is already committed, e.g. by a Spring Data repository's own
 * transaction) the call returns normally; the key is retried in the background until it lands
 * (at most 5 s after Redis takes writes again), and until then this instance does not block the
 * filter. Other instances block the key until it lands. After 2 minutes of refusals, or with more
 * than 100,000 keys waiting, the filter is re-warmed from its warmup SQL instead.
 *
 * <p>Every load replays an added key for {@code bloom-guard.journal.retention} (10 minutes), so a
 * transaction that commits after loads whose snapshots could not see its row still finds its key:
 * keep the retention longer than the longest transaction that writes a guarded key. While
 * instances of differing filter configurations run side by side (a rolling deploy), the key is
 * added to every generation of the filter in use.
 *
 * <p>On a method returning a {@code CompletableFuture} or {@code CompletionStage},
 * {@code #result} is the completed value: its key is added without blocking, and the returned
 * future completes only once the key is in the filter; a failed add fails it with a
 * {@link BloomGuardException} (and is retried as above, since whether a transaction rolls back
 * cannot be told there). On a {@code Mono}, a {@code Flux} or another reactive type,
 * {@code #result} is each emitted value: its key is added, without blocking, before the value is
 * passed on, and a failed add ends the sequence with that {@link BloomGuardException}.
 */
@Target({ ElementType.METHOD, ElementType.TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface BloomPut {

    /** Name of the filter under {@code bloom-guard.filters}. */
    String filter();

    /** SpEL expression for the key to add, over the arguments and {@code #result}. */
    String key();
}
