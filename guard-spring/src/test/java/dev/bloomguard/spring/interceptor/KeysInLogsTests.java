package dev.bloomguard.spring.interceptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
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
import ch.qos.logback.core.AppenderBase;
import dev.bloomguard.embedded.RedisServer;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BloomGuard;
import dev.bloomguard.spring.BloomGuardException;
import dev.bloomguard.spring.BloomGuardRejectedException;
import dev.bloomguard.spring.BloomPut;
import dev.bloomguard.spring.BootNames;
import dev.bloomguard.spring.autoconfigure.BloomGuardAutoConfiguration;
import dev.bloomguard.testsupport.Await;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * Keys are user ids, emails, tokens: no log line of bloom-guard, at any level down to TRACE,
 * holds one, whether the key passed, was rejected, was added, or its add failed and was retried;
 * nor when a key expression fails on the caller's input, or the audit's second lookup of a blocked
 * call fails: what those throw may quote the input, so neither its message nor its causes' are
 * logged (their types and stack frames are).
 */
class KeysInLogsTests {

    private static final String PRESENT = "present.person@example.com";
    private static final String ABSENT = "absent.person@example.com";
    private static final String ADDED = "added.person@example.com";
    private static final String REFUSED = "refused.person@example.com";
    private static final String NOT_A_NUMBER = "not-a-number.person@example.com";
    private static final String AUDITED = "audited.person@example.com";

    @Test
    void noLogLineAtAnyLevelHoldsAKey() throws Exception {
        Logger logger = (Logger) LoggerFactory.getLogger("dev.bloomguard");
        Level level = logger.getLevel();
        Lines lines = new Lines();
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
                            "bloom-guard.filters.user.expected-insertions=1000",
                            "bloom-guard.filters.ledger.expected-insertions=1000",
                            "bloom-guard.filters.ledger.audit.sample-rate=1")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        context.getBean(BloomFilterRegistry.class).filter("user").load(Stream.of(PRESENT));
                        context.getBean(BloomFilterRegistry.class).filter("ledger").load(Stream.of(PRESENT));
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

                        assertThatThrownBy(() -> accounts.findByNumber(NOT_A_NUMBER))
                                .isInstanceOf(BloomGuardException.class)
                                .hasMessageContaining("NumberFormatException")
                                .satisfies(ex -> assertThat(ex.getMessage()).doesNotContain(NOT_A_NUMBER));
                        assertThatThrownBy(() -> accounts.lookUpFailing(AUDITED))
                                .isInstanceOf(BloomGuardRejectedException.class);
                        Await.until("the audit's failed lookup to be logged", Duration.ofSeconds(10),
                                () -> lines.events.stream().anyMatch(line -> line.getFormattedMessage()
                                        .contains("the audit's lookup of a blocked call")),
                                logged -> logged);
                    });
        }
        finally {
            logger.detachAppender(lines);
            logger.setLevel(level);
        }

        List<String> text = new ArrayList<>();
        List<String> thrownTypes = new ArrayList<>();
        for (ILoggingEvent line : lines.events) {
            text.add(line.getFormattedMessage());
            for (IThrowableProxy thrown = line.getThrowableProxy(); thrown != null; thrown = thrown.getCause()) {
                text.add(thrown.getMessage());
                text.add(thrown.getClassName());
                thrownTypes.add(thrown.getClassName() + ": " + thrown.getMessage());
            }
        }
        assertThat(text).as("bloom-guard's log lines at TRACE")
                .anySatisfy(line -> assertThat(line).contains("rejected a key of " + ABSENT.length() + " characters"))
                .anySatisfy(line -> assertThat(line).contains("could not add"))
                .anySatisfy(line -> assertThat(line).contains("Key expression of").contains("findByNumber"))
                .anySatisfy(line -> assertThat(line).contains("the audit's lookup of a blocked call")
                        .contains("IllegalStateException"));
        assertThat(thrownTypes).as("what the failed key expression threw, by its type")
                .anySatisfy(line -> assertThat(line).contains(NumberFormatException.class.getName()));
        for (String key : List.of(PRESENT, ABSENT, ADDED, REFUSED, NOT_A_NUMBER, AUDITED)) {
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

        @BloomGuard(filter = "user", key = "T(java.lang.Long).parseLong(#number)")
        public String findByNumber(String number) {
            return number;
        }

        /** Blocked for an absent key; when the audit looks it up again, fails quoting it. */
        @BloomGuard(filter = "ledger", key = "#email")
        public String lookUpFailing(String email) {
            throw new IllegalStateException("the accounts database has no row for " + email,
                    new IllegalArgumentException("while reading " + email));
        }
    }

    /** Every line, from every thread: the audit logs on its own. */
    static final class Lines extends AppenderBase<ILoggingEvent> {

        final List<ILoggingEvent> events = new CopyOnWriteArrayList<>();

        @Override
        protected void append(ILoggingEvent event) {
            events.add(event);
        }
    }
}
