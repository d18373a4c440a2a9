package dev.bloomguard.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes the annotated bean, a {@link dev.bloomguard.spring.warmup.KeySource}, the source of the
 * named filter's warmup, re-warm and rebuild; on a {@code @Bean} method or a {@code @Component}
 * class. The same as {@code bloom-guard.filters.<name>.source-bean: <bean name>}.
 *
 * <p>Startup fails, naming the filter, when the filter is not declared under
 * {@code bloom-guard.filters}, also has {@code warmup.sql}, or is claimed by another bean.
 */
@Target({ ElementType.TYPE, ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface BloomKeySource {

    /** The filter's name under {@code bloom-guard.filters}. */
    String value();
}
