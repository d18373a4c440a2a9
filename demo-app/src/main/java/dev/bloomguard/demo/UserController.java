package dev.bloomguard.demo;

import java.net.URI;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import dev.bloomguard.spring.web.BloomGuardRejectedExceptionHandler;

/**
 * {@code GET /users/{id}} and {@code POST /users}.
 *
 * <p>An absent id answers 404 by either road: the filter rejects it before the repository runs
 * (bloom-guard renders that as 404), or, for the rare false positive, the query finds nothing.
 */
@RestController
class UserController {

    /** The body of {@code POST /users}. */
    record NewUser(String name, String email) {
    }

    private final UserRepository users;

    UserController(UserRepository users) {
        this.users = users;
    }

    @GetMapping("/users/{id}")
    User find(@PathVariable long id) {
        return users.findById(id)
                .orElseThrow(() -> new ResponseStatusException(HttpStatus.NOT_FOUND, BloomGuardRejectedExceptionHandler.DETAIL));
    }

    @PostMapping("/users")
    ResponseEntity<User> create(@RequestBody NewUser request) {
        if (request.name() == null || request.name().isBlank() || request.email() == null || request.email().isBlank()) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "name and email are required");
        }
        User user = users.save(new User(null, request.name(), request.email()));
        return ResponseEntity.created(URI.create("/users/" + user.id())).body(user);
    }
}
