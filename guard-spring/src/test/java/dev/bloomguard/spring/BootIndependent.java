package dev.bloomguard.spring;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Tag;

/**
 * A slow test whose behaviour guard-core and the starter decide with the same code whatever the
 * Spring Boot generation (a stall of the process, Redis loading its dataset, the rate of false
 * positives, swaps under two instances). It runs on Spring Boot 3.5; the Spring Boot 4.0 run of
 * these tests ({@code compat/boot4-starter-tests}) leaves it out to keep CI within its time, and
 * runs every other test of its class.
 */
@Target({ ElementType.TYPE, ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Tag(BootIndependent.TAG)
public @interface BootIndependent {

    /** The tag the Spring Boot 4.0 run excludes. */
    String TAG = "boot-independent";
}
