package dev.bloomguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Proxy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import dev.bloomguard.spring.BootNames;
import dev.bloomguard.spring.RealServers;
import dev.bloomguard.spring.clients.ClientsApp;

/**
 * Redis settings that cannot work fail the start, and the failure report says what is wrong and
 * what to set (BloomGuardConfigurationFailureAnalyzer, registered in META-INF/spring.factories).
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisConnectionFailureTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BootNames.aopAutoConfiguration(), BootNames.redisAutoConfiguration(),
                    BloomGuardAutoConfiguration.class))
            .withPropertyValues("bloom-guard.filters.user.expected-insertions=1000");

    @Test
    void aBadUrlFailsNamingThePropertyAndHowToWriteIt() {
        assertAnalysis(runner.withPropertyValues("bloom-guard.redis.url=http://redis.example:6379"),
                "bloom-guard.redis.url is not a Redis URL", "redis://");
    }

    @Test
    void eachBadValueFailsNamingItsProperty() {
        assertAnalysis(runner.withPropertyValues("bloom-guard.redis.port=70000"), "bloom-guard.redis.port (70000)",
                "1 to 65535");
        assertAnalysis(runner.withPropertyValues("bloom-guard.redis.timeout=0s"), "bloom-guard.redis.timeout (PT0S)",
                "positive");
        assertAnalysis(runner.withPropertyValues("bloom-guard.redis.database=-1"), "bloom-guard.redis.database (-1)",
                "0 or more");
        assertAnalysis(runner.withPropertyValues("bloom-guard.redis.username=guard"),
                "bloom-guard.redis.username is set without bloom-guard.redis.password", "password");
        assertAnalysis(runner.withPropertyValues("bloom-guard.redis.sentinel.master=mymaster"),
                "bloom-guard.redis.sentinel.nodes is empty", "host:port");
        assertAnalysis(runner.withPropertyValues("bloom-guard.redis.sentinel.nodes=localhost:26379"),
                "bloom-guard.redis.sentinel.master is not", "sentinel.master");
        assertAnalysis(runner.withPropertyValues("bloom-guard.redis.cluster.nodes=localhost"),
                "bloom-guard.redis.cluster.nodes has 'localhost', which is not host:port", "host:port");
        assertAnalysis(runner.withPropertyValues("bloom-guard.redis.cluster.nodes=localhost:7000",
                "bloom-guard.redis.sentinel.master=mymaster"), "are both set", "Keep the settings");
        assertAnalysis(runner.withPropertyValues("bloom-guard.redis.cluster.nodes=localhost:7000",
                "bloom-guard.redis.database=3"), "a Redis Cluster has only database 0", "Remove");
    }

    /**
     * Lettuce hands the connect timeout to Netty in whole milliseconds, where 0 means no timeout:
     * a connect timeout under 1 ms would wait on a connect for ever instead of almost not at all.
     */
    @Test
    void aConnectTimeoutUnderAMillisecondFailsNamingItsProperty() {
        assertAnalysis(runner.withPropertyValues("bloom-guard.redis.host=" + RealServers.redis().host(),
                "bloom-guard.redis.port=" + RealServers.redis().port(), "bloom-guard.redis.connect-timeout=500us"),
                "bloom-guard.redis.connect-timeout (PT0.0005S) must be at least 1 ms", "e.g. 2s");
    }

    @Test
    void settingsThatNameNoServerFailRatherThanConnectToLocalhost() {
        assertAnalysis(runner.withPropertyValues("bloom-guard.redis.timeout=2s"),
                "none names a server", "bloom-guard.redis.host");
        assertAnalysis(runner.withPropertyValues("bloom-guard.redis.client-name=orders"),
                "would connect to localhost:6379", "spring.data.redis");
    }

    @Test
    void anSslBundleThatDoesNotExistFailsNamingItsPropertyAndTheBundle() {
        ApplicationContextRunner withBundles = runner.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class));
        assertAnalysis(withBundles.withPropertyValues("bloom-guard.redis.host=redis.example",
                "bloom-guard.redis.ssl.bundle=redis"),
                "bloom-guard.redis.ssl.bundle names the SSL bundle 'redis', which is not defined", "spring.ssl.bundle.pem.redis");
        assertAnalysis(withBundles.withUserConfiguration(OtherClientFactory.class)
                .withPropertyValues("spring.data.redis.host=redis.example", "spring.data.redis.ssl.bundle=redis"),
                "spring.data.redis.ssl.bundle names the SSL bundle 'redis', which is not defined", "spring.ssl.bundle.jks.redis");
    }

    @Test
    void aStrayTimeoutDoesNotPassForTheRedisThatRedissonsOwnFileNames() {
        assertAnalysis(runner.withUserConfiguration(OtherClientFactory.class)
                .withPropertyValues("spring.redis.redisson.file=classpath:redisson.yaml", "spring.data.redis.timeout=3s"),
                "configured by spring.redis.redisson.*", "bloom-guard.redis.host");
    }

    @Test
    void filtersWithNeitherAConnectionFactoryNorSettingsFailSayingWhatToSet() {
        assertAnalysis(new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BootNames.aopAutoConfiguration(), BloomGuardAutoConfiguration.class))
                .withPropertyValues("bloom-guard.filters.user.expected-insertions=1000"),
                "bloom-guard has filters (user) but no Redis", "bloom-guard.redis.host");
    }

    @Test
    void anotherClientsFactoryConfiguredOutsideSpringDataRedisIsNotGuessed() {
        assertAnalysis(runner.withUserConfiguration(OtherClientFactory.class)
                .withPropertyValues("spring.redis.redisson.file=classpath:redisson.yaml"),
                "configured by spring.redis.redisson.*", "bloom-guard.redis.host");
    }

    @Test
    void theStartupReportShowsTheDescriptionAndTheAction(CapturedOutput output) {
        assertThatThrownBy(() -> new SpringApplicationBuilder(ClientsApp.class).web(WebApplicationType.NONE)
                .run("--bloom-guard.redis.port=0", "--bloom-guard.filters.user.expected-insertions=1000"))
                .hasRootCauseInstanceOf(BloomGuardRedisException.class);
        assertThat(output).contains("APPLICATION FAILED TO START", "Description:",
                "bloom-guard cannot connect to Redis: bloom-guard.redis.port (0) is not a TCP port", "Action:",
                "Use a port from 1 to 65535.");
    }

    private static void assertAnalysis(ApplicationContextRunner runner, String description, String action) {
        runner.run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = new BloomGuardConfigurationFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).as("analysis of %s", context.getStartupFailure()).isNotNull();
            assertThat(analysis.getDescription()).contains(description);
            assertThat(analysis.getAction()).contains(action);
        });
    }

    /** The factory of a client other than Lettuce, as Redisson's starter makes it from its own file. */
    @Configuration(proxyBeanMethods = false)
    static class OtherClientFactory {

        @Bean
        RedisConnectionFactory otherClientsFactory() {
            return (RedisConnectionFactory) Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] { RedisConnectionFactory.class }, (proxy, method, args) -> switch (method.getName()) {
                        case "toString" -> "another client's RedisConnectionFactory";
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "equals" -> proxy == args[0];
                        default -> throw new UnsupportedOperationException("never used by bloom-guard");
                    });
        }
    }
}
