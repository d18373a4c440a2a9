package dev.bloomguard.spring.web;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import dev.bloomguard.spring.BloomGuardRejectedException;

/**
 * Renders a rejected call, thrown or signalled by a {@code Mono}/{@code Flux}, as HTTP 404 with a
 * ProblemDetail body under Spring WebFlux, for annotated controllers and functional endpoints
 * ({@code RouterFunction}) alike, in applications that turned problem details on
 * ({@code spring.webflux.problemdetails.enabled}); without them,
 * {@link BloomGuardRejectedWebExceptionHandler} gives the standard error body instead. Ordered
 * last, as {@link BloomGuardRejectedExceptionHandler} is and for the same reason: an
 * application's own handler for the exception wins.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class ReactiveBloomGuardRejectedExceptionHandler {

    @ExceptionHandler(BloomGuardRejectedException.class)
    public ResponseEntity<ProblemDetail> handleRejected(BloomGuardRejectedException ex) {
        return BloomGuardRejectedExceptionHandler.problem();
    }
}
