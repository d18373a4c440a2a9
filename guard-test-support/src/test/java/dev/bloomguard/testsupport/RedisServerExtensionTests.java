package dev.bloomguard.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class RedisServerExtensionTests {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    @Test
    void theClassHasARealRedisOfItsOwn() throws IOException {
        try (Socket socket = new Socket(REDIS.host(), REDIS.port())) {
            socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            BufferedReader reply = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));

            assertThat(reply.readLine()).isEqualTo("+PONG");
        }
    }

    @Test
    void countsTheCommandsTheServerRan() {
        long before = REDIS.commandCalls("incr");

        REDIS.admin().incr("counted");
        REDIS.admin().incr("counted");

        assertThat(REDIS.commandCalls("incr")).isEqualTo(before + 2);
        assertThat(REDIS.commandCalls("no-such-command")).isZero();
    }
}
