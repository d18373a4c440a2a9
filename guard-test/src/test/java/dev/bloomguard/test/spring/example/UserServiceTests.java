package dev.bloomguard.test.spring.example;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import dev.bloomguard.test.spring.AutoConfigureBloomGuardInMemory;
import dev.bloomguard.test.spring.BloomGuardTester;

/**
 * The documentation's test without Redis, run as it stands; {@code RejectionRateTests} shows that
 * the key it rejects is not a lucky one.
 */
@SpringBootTest
@AutoConfigureBloomGuardInMemory
class UserServiceTests {

    @Autowired
    UserService users;

    @Autowired
    BloomGuardTester bloomGuard;

    @Test
    void findsAUserThatExistsAndRejectsOneThatDoesNot() {
        bloomGuard.preload("user", 1L, 2L);

        bloomGuard.assertPassed(() -> users.find(1L));
        bloomGuard.assertRejected(() -> users.find(99L));
    }
}
