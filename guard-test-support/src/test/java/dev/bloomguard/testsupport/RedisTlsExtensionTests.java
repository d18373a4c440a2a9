package dev.bloomguard.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.api.StatefulRedisConnection;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class RedisTlsExtensionTests {

    @RegisterExtension
    static final RedisTlsExtension TLS = new RedisTlsExtension();

    @Test
    void aClientTrustingTheCertificateTalksTlsToTheServer() {
        RedisClient client = RedisClient.create(RedisURI.builder().withHost("127.0.0.1").withPort(TLS.tlsPort())
                .withSsl(true).build());
        client.setOptions(ClientOptions.builder()
                .sslOptions(SslOptions.builder().trustManager(TLS.certificate().toFile()).build()).build());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            connection.sync().set("tls-key", "over tls");
        }
        finally {
            client.shutdown();
        }
        assertThat(TLS.server().isRunning()).isTrue();
        RedisClient plain = RedisClient.create(RedisURI.create(TLS.server().host(), TLS.server().port()));
        try (StatefulRedisConnection<String, String> connection = plain.connect()) {
            assertThat(connection.sync().get("tls-key")).as("read on the plain port").isEqualTo("over tls");
        }
        finally {
            plain.shutdown();
        }
    }

    @Test
    void aClientWithOnlyTheJvmsTrustStoreIsRefused() {
        RedisClient client = RedisClient.create(RedisURI.builder().withHost("127.0.0.1").withPort(TLS.tlsPort())
                .withSsl(true).build());
        try {
            assertThatThrownBy(client::connect).isInstanceOf(RedisConnectionException.class);
        }
        finally {
            client.shutdown();
        }
    }
}
