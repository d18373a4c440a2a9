package dev.bloomguard.test.spring.example;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.utility.DockerImageName;

import dev.bloomguard.test.spring.AutoConfigureBloomGuard;
import dev.bloomguard.test.spring.BloomGuardTester;

/**
 * The README's Testcontainers example: the filters in a {@code redis:7} container that
 * {@code @ServiceConnection} points the application (and the starter) at. Compiled by the build,
 * never run by it: its name is not one Surefire runs, as the build's machines have no Docker.
 * {@code RedisSliceTests} runs the same steps on a redis-server the test starts.
 */
@SpringBootTest
@Testcontainers
@AutoConfigureBloomGuard
class UserServiceRedisContainerIT {

    @Container
    @ServiceConnection(name = "redis")
    static GenericContainer<?> redis = new GenericContainer<>(DockerImageName.parse("redis:7")).withExposedPorts(6379);

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
