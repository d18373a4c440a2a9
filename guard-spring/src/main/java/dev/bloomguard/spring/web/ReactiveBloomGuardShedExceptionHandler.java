package dev.bloomguard.spring.web;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import dev.bloomguard.spring.BloomGuardShedException;

/**
 * Renders a shed call, thrown or signalled by a {@code Mono}/{@code Flux}, as HTTP 503 with a
 * {@code Retry-After} header and a ProblemDetail body under Spring WebFlux, in applications that
 * turned problem details on ({@code spring.webflux.problemdetails.enabled}); without them,
 * {@link BloomGuardShedWebExceptionHandler} gives the standard error body instead. Ordered last,
 * as {@link BloomGuardShedExceptionHandler} is: an application's own handler for the exception wins.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class ReactiveBloomGuardShedExceptionHandler {

    @ExceptionHandler(BloomGuardShedException.class)
    public ResponseEntity<ProblemDetail> handleShed(BloomGuardShedException ex) {
        return BloomGuardShedExceptionHandler.problem(ex);
    }
}
