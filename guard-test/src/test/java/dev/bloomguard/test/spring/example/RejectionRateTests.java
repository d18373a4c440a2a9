package dev.bloomguard.test.spring.example;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import dev.bloomguard.test.spring.AutoConfigureBloomGuardInMemory;
import dev.bloomguard.test.spring.BloomGuardTester;

/**
 * What the documentation's example ({@code UserServiceTests}) stands on: the path that lets the
 * preloaded users through rejects absent users at the filter's rate, not one lucky id.
 */
@SpringBootTest
@AutoConfigureBloomGuardInMemory
class RejectionRateTests {

    @Autowired
    UserService users;

    @Autowired
    BloomGuardTester bloomGuard;

    @Test
    void thePreloadedUsersPassAndMostAbsentUsersAreRejected() {
        bloomGuard.preload("user", 1L, 2L);
        long before = bloomGuard.blocked("user");

        long rejected = LongStream.rangeClosed(1_000, 1_999)
                .filter(id -> bloomGuard.rejects(() -> users.find(id))).count();

        bloomGuard.assertPassed(() -> users.find(1L));
        bloomGuard.assertPassed(() -> users.find(2L));
        assertThat(rejected).as("absent users rejected, of 1,000").isGreaterThan(990);
        assertThat(bloomGuard.blocked("user") - before).isEqualTo(rejected);
    }
}
