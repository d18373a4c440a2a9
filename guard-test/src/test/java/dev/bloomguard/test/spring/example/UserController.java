package dev.bloomguard.test.spring.example;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * The web layer of the testing examples: it knows nothing of bloom-guard. A user the filter
 * rejects never reaches {@link UserService#find}, and the starter answers 404 for it.
 */
@RestController
public class UserController {

    private final UserService users;

    public UserController(UserService users) {
        this.users = users;
    }

    @GetMapping("/users/{id}")
    public String user(@PathVariable long id) {
        return users.find(id);
    }
}
