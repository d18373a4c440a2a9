package dev.bloomguard.test.spring.example;

import dev.bloomguard.spring.BloomGuard;

/** The service of the README's testing examples. */
public class UserService {

    @BloomGuard(filter = "user", key = "#id")
    public String find(long id) {
        return "user " + id;
    }
}
