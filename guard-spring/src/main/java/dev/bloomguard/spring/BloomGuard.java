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
 * {@code #user.id}, {@code #root.args[0]}), parsed once per method. A {@code null} key is not
 * checked; a collection or array key is checked as a batch and rejected only when every element
 * is absent. On a type, it applies to every public method of the type. Works on interface
 * methods, so Spring Data repositories can be guarded where they are declared.
 *
 * <p>A method returning a {@code Mono} or a {@code Flux} is checked on subscription without
 * blocking a thread, and runs only once admitted; a rejection is an error signal carrying
 * {@link BloomGuardRejectedException}, or an empty {@code Mono}/{@code Flux} under
 * {@code on-absent: return-empty}.
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
