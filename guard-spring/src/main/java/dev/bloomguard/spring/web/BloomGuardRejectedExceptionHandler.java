package dev.bloomguard.spring.web;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import dev.bloomguard.spring.BloomGuardRejectedException;

/**
 * Renders a rejected call as HTTP 404 with a ProblemDetail body: to the client a key the filter
 * rejects is simply not found. The body names neither the key nor the filter. Ordered ahead of
 * advice at default precedence; declare a bean of this type to replace it.
 */
@RestControllerAdvice
@Order(BloomGuardRejectedExceptionHandler.ORDER)
public class BloomGuardRejectedExceptionHandler {

    /** Ahead of application advice at default (lowest) precedence. */
    public static final int ORDER = Ordered.LOWEST_PRECEDENCE - 100;

    /** The body's detail: to the client the key is simply not found. */
    public static final String DETAIL = "The requested resource does not exist.";

    @ExceptionHandler(BloomGuardRejectedException.class)
    public ResponseEntity<ProblemDetail> handleRejected(BloomGuardRejectedException ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, DETAIL);
        problem.setTitle(HttpStatus.NOT_FOUND.getReasonPhrase());
        return ResponseEntity.status(HttpStatus.NOT_FOUND).contentType(MediaType.APPLICATION_PROBLEM_JSON).body(problem);
    }
}
