package dev.bloomguard.spring;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * What a test of an application served over a real server and socket
 * ({@code @SpringBootTest(webEnvironment = RANDOM_PORT)}) starts from: the application on the test
 * Redis, the port it listens on and its filter registry. Each subclass still declares its own
 * {@code @SpringBootTest}: the application and its properties are what the tests differ in.
 */
public abstract class AbstractServedApplicationTests {

    /** The port the server was given, for {@link TestHttp} or a {@code WebTestClient}. */
    @Value("${local.server.port}")
    protected int port;

    @Autowired
    protected BloomFilterRegistry registry;

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry properties) {
        RealServers.registerRedis(properties);
    }
}
