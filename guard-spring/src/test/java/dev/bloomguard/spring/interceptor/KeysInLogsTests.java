package dev.bloomguard.spring.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.read.ListAppender;
import dev.bloomguard.embedded.RedisServer;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BloomGuard;
import dev.bloomguard.spring.BloomGuardRejectedException;
import dev.bloomguard.spring.BloomPut;
import dev.bloomguard.spring.BootNames;
import dev.bloomguard.spring.autoconfigure.BloomGuardAutoConfiguration;
import dev.bloomguard.testsupport.Await;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * Keys are user ids, emails, tokens: no log line of bloom-guard, at any level down to TRACE,
 * holds one, whether the key passed, was rejected, was added, or its add failed and was retried.
 */
class KeysInLogsTests {

    private static final String PRESENT = "present.person@example.com";
    private static final String ABSENT = "absent.person@example.com";
    private static final String ADDED = "added.person@example.com";
    private static final String REFUSED = "refused.person@example.com";

    @Test
    void noLogLineAtAnyLevelHoldsAKey() throws Exception {
        Logger logger = (Logger) LoggerFactory.getLogger("dev.bloomguard");
        Level level = logger.getLevel();
        ListAppender<ILoggingEvent> lines = new ListAppender<>();
        lines.start();
        logger.addAppender(lines);
        logger.setLevel(Level.TRACE);
        try (RedisServer redis = RedisServer.start();
                RedisClient client = RedisClient.create("redis://127.0.0.1:" + redis.port());
                StatefulRedisConnection<String, String> admin = client.connect()) {
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(BootNames.aopAutoConfiguration(),
                            BootNames.redisAutoConfiguration(), BloomGuardAutoConfiguration.class))
                    .withUserConfiguration(AccountsConfiguration.class)
                    .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
                            "bloom-guard.key-prefix=keys-in-logs", "bloom-guard.redis-timeout=2s",
                            "bloom-guard.filters.user.expected-insertions=1000")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        context.getBean(BloomFilterRegistry.class).filter("user").load(Stream.of(PRESENT));
                        Accounts accounts = context.getBean(Accounts.class);

                        assertThat(accounts.find(PRESENT)).isEqualTo(PRESENT);
                        assertThatThrownBy(() -> accounts.find(ABSENT)).isInstanceOf(BloomGuardRejectedException.class);
                        accounts.create(ADDED);
                        assertThat(accounts.find(ADDED)).isEqualTo(ADDED);

                        admin.sync().configSet("min-replicas-to-write", "1");
                        accounts.create(REFUSED);
                        assertThat(accounts.find(REFUSED)).as("not blocked while its add is retried").isEqualTo(REFUSED);
                        admin.sync().configSet("min-replicas-to-write", "0");
                        Await.until("the refused add to land", Duration.ofSeconds(10),
                                () -> context.getBean(BloomFilterRegistry.class).filter("user").mightContain(REFUSED),
                                landed -> landed);
                    });
        }
        finally {
            logger.detachAppender(lines);
            logger.setLevel(level);
        }

        List<String> text = new ArrayList<>();
        for (ILoggingEvent line : lines.list) {
            text.add(line.getFormattedMessage());
            for (IThrowableProxy thrown = line.getThrowableProxy(); thrown != null; thrown = thrown.getCause()) {
                text.add(thrown.getMessage());
            }
        }
        assertThat(text).as("bloom-guard's log lines at TRACE")
                .anySatisfy(line -> assertThat(line).contains("rejected a key of " + ABSENT.length() + " characters"))
                .anySatisfy(line -> assertThat(line).contains("could not add"));
        for (String key : List.of(PRESENT, ABSENT, ADDED, REFUSED)) {
            assertThat(text).as("log lines holding %s", key).noneSatisfy(line -> assertThat(line).contains(key));
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class AccountsConfiguration {

        @Bean
        Accounts accounts() {
            return new Accounts();
        }
    }

    public static class Accounts {

        @BloomGuard(filter = "user", key = "#email")
        public String find(String email) {
            return email;
        }

        @BloomPut(filter = "user", key = "#email")
        public String create(String email) {
            return email;
        }
    }
}
