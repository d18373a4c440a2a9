package dev.bloomguard.spring.web;

import org.springframework.core.Ordered;
import org.springframework.http.HttpStatus;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;

import dev.bloomguard.spring.BloomGuardRejectedException;
import reactor.core.publisher.Mono;

/**
 * Under Spring WebFlux without problem details, hands a rejected call that no
 * {@code @ExceptionHandler} took to Spring Boot's error handler as a 404
 * {@link ResponseStatusException}, which renders the standard error body, as for the
 * application's other 404s; without it the exception would be a 500.
 *
 * <p>The thing not to get wrong: this cannot be an {@code @ExceptionHandler}, as the
 * problem-details handler is: an exception thrown by one is logged and dropped, and the original
 * exception goes on. So it runs where exceptions that no controller advice handled arrive,
 * just ahead of Spring Boot's error handler (order -1); an application's own advice for the
 * exception has had its turn by then, and an application's own error handler of the same order
 * is registered first.
 */
public class BloomGuardRejectedWebExceptionHandler implements WebExceptionHandler, Ordered {

    /** Just ahead of Spring Boot's {@code ErrorWebExceptionHandler}. */
    public static final int ORDER = -2;

    @Override
    public Mono<Void> handle(ServerWebExchange exchange, Throwable ex) {
        if (ex instanceof BloomGuardRejectedException) {
            return Mono.error(new ResponseStatusException(HttpStatus.NOT_FOUND, BloomGuardRejectedExceptionHandler.DETAIL));
        }
        return Mono.error(ex);
    }

    @Override
    public int getOrder() {
        return ORDER;
    }
}
