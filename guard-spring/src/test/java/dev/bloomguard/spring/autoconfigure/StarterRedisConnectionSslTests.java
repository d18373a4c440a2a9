package dev.bloomguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslOptions;
import org.springframework.boot.ssl.SslStoreBundle;

/**
 * Lettuce's TLS options made from an SSL bundle keep what the bundle restricts, as Spring Boot's
 * own Lettuce configuration does; that the trust reaches a real TLS Redis is shown by
 * OwnRedisConnectionTests and the Jedis application's tests.
 */
class StarterRedisConnectionSslTests {

    @Test
    void tlsOptionsKeepTheBundlesCiphersAndProtocols() {
        SslBundle bundle = SslBundle.of(SslStoreBundle.NONE, null,
                SslOptions.of(new String[] { "TLS_AES_128_GCM_SHA256" }, new String[] { "TLSv1.3" }));

        io.lettuce.core.SslOptions options = StarterRedisConnection.sslOptions(bundle);

        assertThat(options.getCipherSuites()).containsExactly("TLS_AES_128_GCM_SHA256");
        assertThat(options.getProtocols()).containsExactly("TLSv1.3");
    }

    @Test
    void aBundleThatRestrictsNothingLeavesLettucesDefaults() {
        io.lettuce.core.SslOptions options = StarterRedisConnection.sslOptions(SslBundle.of(SslStoreBundle.NONE));
        io.lettuce.core.SslOptions defaults = io.lettuce.core.SslOptions.create();

        assertThat(options.getCipherSuites()).isEqualTo(defaults.getCipherSuites());
        assertThat(options.getProtocols()).isEqualTo(defaults.getProtocols());
    }
}
