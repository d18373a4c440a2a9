package dev.bloomguard.spring.web;

import java.io.IOException;

import jakarta.servlet.http.HttpServletResponse;

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
 * Renders a rejected call as HTTP 404 under Spring MVC, as the application renders its other
 * errors: a ProblemDetail when it turned problem details on ({@code spring.mvc.problemdetails.enabled}),
 * otherwise Spring Boot's standard error body, which the error page writes for this
 * {@code sendError(404)} as for any other. To the client a key the filter rejects is simply not
 * found: the body names neither the key nor the filter (but for a stack trace, where the
 * application puts those in error bodies).
 *
 * <p>The thing not to get wrong: an application's own {@code @ExceptionHandler} for
 * {@link BloomGuardRejectedException} must win. Spring takes the first advice, in order, that
 * handles the exception, so this one comes last: lowest precedence, and registered (being
 * auto-configured) after the application's advice of that same default order. Declare a bean of
 * this type to replace it; {@code bloom-guard.web.enabled=false} leaves it out.
 * {@link ReactiveBloomGuardRejectedExceptionHandler} and {@link BloomGuardRejectedWebExceptionHandler} are its
 * WebFlux counterparts.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class BloomGuardRejectedExceptionHandler {

    /** The body's detail (or message): to the client the key is simply not found. */
    public static final String DETAIL = "The requested resource does not exist.";

    private final boolean problemDetails;

    /** @param problemDetails whether to answer with a ProblemDetail rather than the standard error body */
    public BloomGuardRejectedExceptionHandler(boolean problemDetails) {
        this.problemDetails = problemDetails;
    }

    /** The ProblemDetail, or nothing once the 404 is sent to the error page. */
    @ExceptionHandler(BloomGuardRejectedException.class)
    public ResponseEntity<ProblemDetail> handleRejected(BloomGuardRejectedException ex, HttpServletResponse response)
            throws IOException {
        if (problemDetails) {
            return problem();
        }
        response.sendError(HttpStatus.NOT_FOUND.value(), DETAIL);
        return null;
    }

    /** The 404 as a ProblemDetail, the same under Spring MVC and WebFlux. */
    static ResponseEntity<ProblemDetail> problem() {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, DETAIL);
        problem.setTitle(HttpStatus.NOT_FOUND.getReasonPhrase());
        return ResponseEntity.status(HttpStatus.NOT_FOUND).contentType(MediaType.APPLICATION_PROBLEM_JSON).body(problem);
    }
}
