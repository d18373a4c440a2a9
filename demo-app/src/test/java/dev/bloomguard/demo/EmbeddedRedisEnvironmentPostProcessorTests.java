package dev.bloomguard.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

class EmbeddedRedisEnvironmentPostProcessorTests {

    private final EmbeddedRedisEnvironmentPostProcessor processor = new EmbeddedRedisEnvironmentPostProcessor(
            destination -> destination.get());

    @Test
    void leavesAConfiguredRedisAlone() {
        for (String property : new String[] { "spring.data.redis.host", "spring.data.redis.url" }) {
            StandardEnvironment environment = environmentWith(Map.of(property, "redis.example.com"));

            processor.postProcessEnvironment(environment, new SpringApplication());

            assertThat(environment.getPropertySources()
                    .contains(EmbeddedRedisEnvironmentPostProcessor.PROPERTY_SOURCE_NAME)).as(property).isFalse();
        }
    }

    @Test
    void pointsAtOneRunningEmbeddedServerWhenNoRedisIsConfigured() throws IOException {
        StandardEnvironment first = environmentWith(Map.of());
        StandardEnvironment second = environmentWith(Map.of());

        processor.postProcessEnvironment(first, new SpringApplication());
        processor.postProcessEnvironment(second, new SpringApplication());

        String host = first.getProperty("spring.data.redis.host");
        int port = first.getRequiredProperty("spring.data.redis.port", Integer.class);
        assertThat(host).isEqualTo("127.0.0.1");
        assertThat(second.getRequiredProperty("spring.data.redis.port", Integer.class)).as("one server per JVM")
                .isEqualTo(port);
        assertThat(ping(host, port)).startsWith("+PONG");
    }

    private static StandardEnvironment environmentWith(Map<String, Object> properties) {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new MapPropertySource("test", properties));
        return environment;
    }

    private static String ping(String host, int port) throws IOException {
        try (Socket socket = new Socket(host, port)) {
            socket.setSoTimeout(2000);
            socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = socket.getInputStream();
            byte[] reply = new byte[7];
            int read = in.read(reply);
            return new String(reply, 0, Math.max(read, 0), StandardCharsets.US_ASCII);
        }
    }
}
