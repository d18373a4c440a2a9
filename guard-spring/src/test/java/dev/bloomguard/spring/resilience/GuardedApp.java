package dev.bloomguard.spring.resilience;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.logging.LoggingApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.DefaultTransactionDefinition;

import reactor.core.publisher.Mono;

import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.spring.BloomGuard;
import dev.bloomguard.spring.BloomGuardRejectedException;
import dev.bloomguard.spring.BloomKeySource;
import dev.bloomguard.spring.BloomPut;
import dev.bloomguard.spring.RealServers;
import dev.bloomguard.spring.warmup.KeySource;
import dev.bloomguard.spring.warmup.RepositoryKeySource;
import dev.bloomguard.testsupport.AbsentKeys;

/**
 * A small application guarding a user directory, started as many times as a test needs
 * (several instances on one Redis and one database), against a Redis the test controls.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class GuardedApp {

    /** What the tests call through the guard. */
    public interface Directory {

        @BloomGuard(filter = "user", key = "#id")
        long find(long id);

        /** Reads the row: empty when it does not exist (a miss, for a filter with negative-cache). */
        @BloomGuard(filter = "user", key = "#id")
        Optional<Long> lookup(long id);

        @BloomPut(filter = "user", key = "#result")
        long create();

        /** As {@link #create()}, in a transaction of its own: the add must land before the commit. */
        @Transactional
        @BloomPut(filter = "user", key = "#result")
        long createInTransaction();

        @BloomGuard(filter = "user", key = "#id")
        Mono<Long> findLater(long id);

        @BloomPut(filter = "user", key = "#result")
        Mono<Long> createLater();
    }

    /**
     * Creates users as a real repository would: the row is inserted, then {@code @BloomPut} adds
     * its id. New ids are odd and above the seeded range, so they never collide with seeded ones.
     */
    public static class Users implements Directory {

        private static final AtomicLong NEXT = new AtomicLong(10_000_001);

        private final AtomicLong calls = new AtomicLong();
        private final JdbcTemplate jdbc;
        private final String table;

        Users(JdbcTemplate jdbc, String table) {
            this.jdbc = jdbc;
            this.table = table;
        }

        @Override
        public long find(long id) {
            calls.incrementAndGet();
            return id;
        }

        @Override
        public Optional<Long> lookup(long id) {
            calls.incrementAndGet();
            return jdbc.queryForList("SELECT id FROM " + table + " WHERE id = ?", Long.class, id).stream().findFirst();
        }

        @Override
        public long create() {
            long id = NEXT.getAndAdd(2);
            jdbc.update("INSERT INTO " + table + " (id) VALUES (?)", id);
            return id;
        }

        @Override
        public long createInTransaction() {
            return create();
        }

        @Override
        public Mono<Long> findLater(long id) {
            return Mono.fromSupplier(() -> find(id));
        }

        @Override
        public Mono<Long> createLater() {
            return Mono.fromSupplier(this::create);
        }

        public long calls() {
            return calls.get();
        }
    }

    @Bean
    Users users(JdbcTemplate jdbc, @Value("${guarded.table}") String table) {
        return new Users(jdbc, table);
    }

    /**
     * With {@code guarded.hook-reads=true}: the starter's {@code BitmapStore}, behind a proxy that
     * runs the hook a test hands to {@link ReadHook#afterNextRead} once Redis has answered the next
     * check and before the answer goes back to the filter; a reply that a busy machine or a GC
     * pause holds up, whatever else happens meanwhile.
     */
    @Bean
    @ConditionalOnProperty("guarded.hook-reads")
    static ReadHook readHook() {
        return new ReadHook();
    }

    @Bean
    @ConditionalOnProperty("guarded.hook-reads")
    static BeanPostProcessor hookedReads(ObjectProvider<ReadHook> hook) {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                return bean instanceof BitmapStore store ? hook.getObject().wrap(store) : bean;
            }
        };
    }

    /** See {@link #readHook()}. */
    public static final class ReadHook {

        private final AtomicReference<Runnable> next = new AtomicReference<>();
        private volatile Thread caller;

        /**
         * Runs {@code hook} once, after the reply of the next check that this thread makes (not a
         * background status read), before the filter looks at it.
         */
        public void afterNextRead(Runnable hook) {
            caller = Thread.currentThread();
            next.set(hook);
        }

        BitmapStore wrap(BitmapStore store) {
            return (BitmapStore) Proxy.newProxyInstance(
                    GuardedApp.class.getClassLoader(), new Class<?>[] { BitmapStore.class },
                    (proxy, method, arguments) -> {
                        Object result;
                        try {
                            result = method.invoke(store, arguments);
                        }
                        catch (InvocationTargetException ex) {
                            throw ex.getCause();
                        }
                        if (method.getName().equals("readBits") && Thread.currentThread() == caller) {
                            Runnable hook = next.getAndSet(null);
                            if (hook != null) {
                                hook.run();
                            }
                        }
                        return result;
                    });
        }
    }

    /** Where the tests' filter {@code user} is warmed from: the same query either way. */
    public enum Source {
        /** {@code bloom-guard.filters.user.warmup.sql}. */
        SQL,
        /** A {@code @BloomKeySource("user")} bean streaming the query through {@code JdbcTemplate}. */
        BEAN
    }

    /**
     * The key source of {@link Source#BEAN}: the query's stream, its text the definition, and the
     * catch-up query's when there is one. Not read-only: some tests' queries count their runs in a
     * sequence.
     */
    @Bean
    @ConditionalOnProperty("guarded.source-query")
    @BloomKeySource("user")
    KeySource userIds(JdbcTemplate jdbc, PlatformTransactionManager transactions, Environment environment) {
        String query = environment.getRequiredProperty("guarded.source-query");
        RepositoryKeySource source = RepositoryKeySource
                .of(query, () -> jdbc.queryForStream(query, (row, number) -> row.getObject(1)))
                .inTransaction(transactions, new DefaultTransactionDefinition());
        String catchUp = environment.getProperty("guarded.catch-up-query");
        if (catchUp == null) {
            return source;
        }
        return source.withCatchUp(environment.getProperty("guarded.catch-up-interval", Duration.class),
                Duration.ofMinutes(1), since -> jdbc.queryForStream(catchUp.replace(":since", "?"),
                        (row, number) -> row.getObject(1), Timestamp.from(since)));
    }

    /**
     * Calls {@code find(id)} until the guard lets it through, and fails (saying {@code what}) once
     * it has been blocked for {@code bound} since {@code since} ({@link System#nanoTime}).
     */
    public static void foundWithin(Directory directory, long id, long since, Duration bound, String what)
            throws InterruptedException {
        while (true) {
            try {
                directory.find(id);
                return;
            }
            catch (BloomGuardRejectedException ex) {
                assertThat(Duration.ofNanos(System.nanoTime() - since))
                        .as(what).isLessThan(bound);
                Thread.sleep(20);
            }
        }
    }

    /**
     * How many of 1,000 odd ids that were never inserted the guard rejects once it blocks again
     * (a filter that bypasses, by design, while it has refused adds to retry or is reloading),
     * polling up to {@code limit} for more than 950.
     */
    public static long rejectedWithin(Directory directory, Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        long rejected = rejected(directory);
        while (rejected <= 950 && System.nanoTime() < deadline) {
            Thread.sleep(100);
            rejected = rejected(directory);
        }
        return rejected;
    }

    /** Of 1,000 odd ids that were never inserted, how many the guard rejects. */
    public static long rejected(Directory directory) {
        return LongStream.range(0, 1_000).map(i -> 2 * i + 1).filter(id -> {
            try {
                directory.find(id);
                return false;
            }
            catch (BloomGuardRejectedException ex) {
                return true;
            }
        }).count();
    }

    /**
     * Creates {@code table} anew holding the users a test starts from, the even ids 2 to
     * {@code 2 * count}: {@link Users#create()} adds odd ids above them; the odd ids below are never inserted.
     */
    public static void createUsers(String table, int count) {
        RealServers.execute("DROP TABLE IF EXISTS " + table, "CREATE TABLE " + table + " (id BIGINT PRIMARY KEY)",
                "INSERT INTO " + table + " SELECT 2 * g FROM generate_series(1, " + count + ") g");
    }

    /** The first odd id, one never inserted, that {@code filter} answers absent for. */
    public static long absentId(RedisBloomFilter filter) {
        return AbsentKeys.first(1, LongStream.iterate(1, id -> id + 2).limit(100_000), id -> filter.check(id) == Membership.ABSENT)
                .get(0);
    }

    /**
     * Starts one instance on Redis at {@code redisPort}, warming filter {@code user} with
     * {@code warmupSql} (as its warmup SQL) from the shared test PostgreSQL, and creating users in {@code table}.
     */
    public static ConfigurableApplicationContext start(int redisPort, String keyPrefix, String table,
            String warmupSql, String... extraProperties) {
        return start(Source.SQL, redisPort, keyPrefix, table, warmupSql, extraProperties);
    }

    /** As {@link #start(int, String, String, String, String...)}, warming from {@code source}. */
    public static ConfigurableApplicationContext start(Source source, int redisPort, String keyPrefix, String table,
            String warmupSql, String... extraProperties) {
        List<String> properties = new ArrayList<>(List.of(
                "guarded.table=" + table,
                "spring.data.redis.host=127.0.0.1",
                "spring.data.redis.port=" + redisPort,
                "spring.datasource.url=" + RealServers.postgres().jdbcUrl(),
                "spring.datasource.username=" + RealServers.postgres().username(),
                "spring.datasource.password=" + RealServers.postgres().password(),
                "spring.jmx.enabled=false",
                "bloom-guard.key-prefix=" + keyPrefix,
                "bloom-guard.redis-timeout=50ms",
                "bloom-guard.circuit-breaker.failure-threshold=3",
                "bloom-guard.circuit-breaker.open-duration=300ms",
                "bloom-guard.lock-ttl=5s",
                "bloom-guard.filters.user.expected-insertions=100000",
                "bloom-guard.filters.user.fpp=0.01",
                source == Source.SQL ? "bloom-guard.filters.user.warmup.sql=" + warmupSql
                        : "guarded.source-query=" + warmupSql,
                "spring.jdbc.template.fetch-size=10000",
                "bloom-guard.filters.user.warmup.blocking=true"));
        if (source != Source.SQL) {
            // A bean source has no key column to read the key type from: declared, as the column is BIGINT.
            properties.add("bloom-guard.filters.user.key-type=integer");
        }
        if (Arrays.stream(extraProperties).noneMatch(extra -> extra.startsWith("bloom-guard.filters.user.bypass."))) {
            // These instances are driven by loops that sweep thousands of ids while the filter
            // cannot answer on purpose (suspended, not ready, Redis down), far above what it ever
            // passed, to show that nothing present is blocked meanwhile; the default bypass
            // budget would shed most of those calls. A test that configures the budget gets its
            // defaults for the rest (RedisLostUnderAttackTests, and FloodTests over HTTP).
            properties.add("bloom-guard.filters.user.bypass.when-exhausted=allow");
        }
        for (String extra : extraProperties) {
            // A bean's catch-up is its own: the SQL source's catch-up properties configure it.
            properties.add(source == Source.SQL ? extra
                    : extra.replace("bloom-guard.filters.user.warmup.catch-up-sql=", "guarded.catch-up-query=")
                            .replace("bloom-guard.filters.user.warmup.catch-up-interval=", "guarded.catch-up-interval="));
        }
        SpringApplicationBuilder builder = new SpringApplicationBuilder(GuardedApp.class).web(WebApplicationType.NONE)
                .properties(properties.toArray(String[]::new));
        // Tests start several instances at once in one JVM; Boot re-initialising the (JVM-wide)
        // logging system from two threads at a time races inside Logback. The test logging
        // configuration is already in place, so these instances leave it alone.
        builder.application().setListeners(builder.application().getListeners().stream()
                .filter(listener -> !(listener instanceof LoggingApplicationListener)).toList());
        return builder.run();
    }
}
