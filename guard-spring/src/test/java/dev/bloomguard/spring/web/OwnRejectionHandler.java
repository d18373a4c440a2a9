package dev.bloomguard.spring.web;

import java.util.function.Function;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import dev.bloomguard.spring.BloomGuardRejectedException;
import reactor.core.publisher.Mono;

/**
 * An application's own handler for rejections, at default order, under Spring MVC and WebFlux
 * alike. It handles only {@link OwnThingController}, so that the other controllers of the same
 * test application show the starter's handler.
 */
@RestControllerAdvice(assignableTypes = OwnRejectionHandler.OwnThingController.class)
public class OwnRejectionHandler {

    /** What this handler answers, unlike the starter's 404. */
    public static final int STATUS = 410;

    @ExceptionHandler(BloomGuardRejectedException.class)
    public ResponseEntity<String> rejected(BloomGuardRejectedException ex) {
        return ResponseEntity.status(STATUS).body("gone from " + ex.getFilter());
    }

    /** {@code GET /own/things/{id}} through a guarded lookup; Spring MVC serves a {@code Mono} as WebFlux does. */
    @RestController
    public static class OwnThingController {

        private final Function<String, Mono<String>> things;

        public OwnThingController(Function<String, Mono<String>> things) {
            this.things = things;
        }

        @GetMapping("/own/things/{id}")
        public Mono<String> thing(@PathVariable String id) {
            return things.apply(id);
        }
    }
}
