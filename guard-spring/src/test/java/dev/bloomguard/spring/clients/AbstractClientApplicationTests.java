package dev.bloomguard.spring.clients;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.bloomguard.spring.RealServers;

/**
 * What every test of a {@link ClientsApp} on another Redis client has: the client's own settings
 * (a {@code clients/*.yml}) pointed at the test Redis, and the test that the starter guards
 * through that Redis. A subclass adds its {@code @SpringBootTest} and what is particular to its
 * client; each runs in an execution of its own, whose class path has that client alone.
 */
public abstract class AbstractClientApplicationTests {

    @Autowired
    protected ApplicationContext context;

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        RealServers.registerRedisPlaceholders(registry);
    }

    @Test
    void bootsAndGuardsThroughTheRedisTheClientUses() {
        ClientsApp.guardsThrough(context, RealServers.redis());
    }
}
