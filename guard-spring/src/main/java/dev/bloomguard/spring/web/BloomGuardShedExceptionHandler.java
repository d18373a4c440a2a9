package dev.bloomguard.spring.web;

import java.io.IOException;
import java.time.Duration;

import jakarta.servlet.http.HttpServletResponse;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import dev.bloomguard.spring.BloomGuardShedException;

/**
 * Renders a shed call as HTTP 503 with a {@code Retry-After} header (whole seconds) under Spring
 * MVC: a ProblemDetail when the application turned problem details on, otherwise Spring Boot's
 * standard error body, as {@link BloomGuardRejectedExceptionHandler} renders a rejection as 404.
 * A shed call says nothing about its key, which may exist: the client is told to come back, not
 * that the resource is missing. The body names neither the key nor the filter.
 *
 * <p>Ordered last, for the same reason as the 404 handler: an application's own
 * {@code @ExceptionHandler} for {@link BloomGuardShedException} wins. Declare a bean of this type to
 * replace it; {@code bloom-guard.web.enabled=false} leaves it out.
 * {@link ReactiveBloomGuardShedExceptionHandler} and {@link BloomGuardShedWebExceptionHandler} are
 * its WebFlux counterparts.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class BloomGuardShedExceptionHandler {

    /** The body's detail (or message). */
    public static final String DETAIL = "The service is busy; try again later.";

    private final boolean problemDetails;

    /** @param problemDetails whether to answer with a ProblemDetail rather than the standard error body */
    public BloomGuardShedExceptionHandler(boolean problemDetails) {
        this.problemDetails = problemDetails;
    }

    /** The ProblemDetail, or nothing once the 503 is sent to the error page. */
    @ExceptionHandler(BloomGuardShedException.class)
    public ResponseEntity<ProblemDetail> handleShed(BloomGuardShedException ex, HttpServletResponse response)
            throws IOException {
        if (problemDetails) {
            return problem(ex);
        }
        response.setHeader(HttpHeaders.RETRY_AFTER, retryAfter(ex));
        response.sendError(HttpStatus.SERVICE_UNAVAILABLE.value(), DETAIL);
        return null;
    }

    /** The 503 as a ProblemDetail with its Retry-After, the same under Spring MVC and WebFlux. */
    static ResponseEntity<ProblemDetail> problem(BloomGuardShedException ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, DETAIL);
        problem.setTitle(HttpStatus.SERVICE_UNAVAILABLE.getReasonPhrase());
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).header(HttpHeaders.RETRY_AFTER, retryAfter(ex))
                .contentType(MediaType.APPLICATION_PROBLEM_JSON).body(problem);
    }

    /** {@code Retry-After} in whole seconds, rounded up, at least 1. */
    static String retryAfter(BloomGuardShedException ex) {
        Duration wait = ex.getRetryAfter() == null ? Duration.ofSeconds(1) : ex.getRetryAfter();
        long seconds = wait.getSeconds() + (wait.getNano() > 0 ? 1 : 0);
        return Long.toString(Math.max(1, seconds));
    }
}
