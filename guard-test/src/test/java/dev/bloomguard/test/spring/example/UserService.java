package dev.bloomguard.test.spring.example;

import org.springframework.stereotype.Service;

import dev.bloomguard.spring.BloomGuard;

/** The service of the testing examples. */
@Service
public class UserService {

    @BloomGuard(filter = "user", key = "#id")
    public String find(long id) {
        return "user " + id;
    }
}
