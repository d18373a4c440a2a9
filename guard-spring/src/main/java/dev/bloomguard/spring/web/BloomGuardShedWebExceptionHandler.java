package dev.bloomguard.spring.web;

import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;

import dev.bloomguard.spring.BloomGuardShedException;
import reactor.core.publisher.Mono;

/**
 * Under Spring WebFlux without problem details, hands a shed call that no {@code @ExceptionHandler}
 * took to Spring Boot's error handler as a 503 {@link ResponseStatusException}, with its
 * {@code Retry-After} header already on the response, so that the standard error body follows as
 * for the application's other errors; without it the exception would be a 500. Runs where
 * {@link BloomGuardRejectedWebExceptionHandler} does, and for the same reason.
 */
public class BloomGuardShedWebExceptionHandler implements WebExceptionHandler, Ordered {

    /** Just ahead of Spring Boot's {@code ErrorWebExceptionHandler}. */
    public static final int ORDER = BloomGuardRejectedWebExceptionHandler.ORDER;

    @Override
    public Mono<Void> handle(ServerWebExchange exchange, Throwable ex) {
        if (ex instanceof BloomGuardShedException shed && !exchange.getResponse().isCommitted()) {
            exchange.getResponse().getHeaders().set(HttpHeaders.RETRY_AFTER,
                    BloomGuardShedExceptionHandler.retryAfter(shed));
            return Mono.error(new ResponseStatusException(HttpStatus.SERVICE_UNAVAILABLE,
                    BloomGuardShedExceptionHandler.DETAIL));
        }
        return Mono.error(ex);
    }

    @Override
    public int getOrder() {
        return ORDER;
    }
}
