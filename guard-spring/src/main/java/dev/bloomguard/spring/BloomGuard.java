package dev.bloomguard.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Checks a key against a Bloom filter before the method runs; a key the filter says is
 * definitely absent is rejected without invoking the method (see {@code on-absent}).
 *
 * <pre>{@code
 * @BloomGuard(filter = "user", key = "#id")
 * Optional<User> findById(long id);
 * }</pre>
 *
 * <p>{@link #key()} is SpEL over the method's arguments ({@code #id}, {@code #p0}, {@code #a0},
 * {@code #user.id}, {@code #root.args[0]}), parsed once per method. A {@code null} key or an
 * empty {@code Optional} is not checked (a present one is unwrapped); a collection or array key is
 * checked as a batch, its null elements skipped, and rejected only when every element is absent.
 * A {@code Map}, {@code Stream}, {@code Iterator} or an {@code Iterable} that is not a collection
 * is not a key: startup fails when the parameter's declared type says so, otherwise the call
 * fails with a {@link BloomGuardException}. On a type, it applies to every public method of the
 * type. Works on interface methods, so Spring Data repositories can be guarded where they are
 * declared. Only public methods called through the bean's proxy are guarded; startup warns about
 * annotated methods no proxy can apply (not public, static, final under a class-based proxy).
 *
 * <p>A method returning a {@code CompletableFuture} or {@code CompletionStage} is checked
 * without blocking the caller's thread and runs only once admitted; a rejection fails the future
 * with {@link BloomGuardRejectedException} (under {@code on-absent: return-empty} it completes
 * with null, {@code Optional.empty()} or an empty collection, by its type argument). A method
 * returning a {@code Mono}, a {@code Flux} or another type Spring's {@code ReactiveAdapterRegistry}
 * knows is checked on subscription, the same way; a rejection is an error signal, or an empty
 * sequence under {@code on-absent: return-empty}. A {@code Future} that is not a
 * {@code CompletionStage} fails startup.
 */
@Target({ ElementType.METHOD, ElementType.TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface BloomGuard {

    /** Name of the filter under {@code bloom-guard.filters}. */
    String filter();

    /** SpEL expression for the key; default: the first argument. */
    String key() default "#root.args[0]";
}
