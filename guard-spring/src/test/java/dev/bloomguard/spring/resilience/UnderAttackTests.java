package dev.bloomguard.spring.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.logging.LoggingApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.dao.EmptyResultDataAccessException;
import org.springframework.http.ResponseEntity;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.misses.MissKeys;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BloomGuard;
import dev.bloomguard.spring.BloomGuardRejectedException;
import dev.bloomguard.spring.BloomPut;
import dev.bloomguard.spring.RealServers;
import dev.bloomguard.spring.TestHttp;
import io.micrometer.core.instrument.MeterRegistry;
import reactor.core.publisher.Mono;

/**
 * An attacker who found keys that pass the filter (false positives) hammers them, with random
 * absent keys, over HTTP, at two instances of one application on real Redis and PostgreSQL.
 * With {@code negative-cache} and {@code single-flight} on, each false-positive key costs the
 * database at most one query per instance while it is remembered; without, every request that
 * passes the filter is a query. And a key the attacker hammered that a user then creates through
 * {@code @BloomPut} on the other instance is served at once.
 */
class UnderAttackTests {

    private static final String TABLE = "attacked_users";
    private static final int USERS = 5_000;
    private static final int ATTACKERS = 12;
    private static final int REQUESTS_PER_ATTACKER = 150;
    /** Where the attacker's random absent ids start; no other test of the class asks for ids this high. */
    private static final long RANDOM_FROM = 1_000_000;

    private static final List<ConfigurableApplicationContext> instances = new ArrayList<>();

    @BeforeAll
    static void startTwoInstances() {
        RealServers.execute("DROP TABLE IF EXISTS " + TABLE,
                "CREATE TABLE " + TABLE + " (id BIGINT PRIMARY KEY, name TEXT NOT NULL)",
                "INSERT INTO " + TABLE + " SELECT g, 'user ' || g FROM generate_series(1, " + USERS + ") g");
        instances.add(start());
        instances.add(start());
    }

    @AfterAll
    static void stop() {
        instances.forEach(ConfigurableApplicationContext::close);
    }

    @Test
    void aFoundFalsePositiveCostsOneQueryPerInstanceWhileRememberedAndACreatedKeyPassesAtOnce() throws Exception {
        List<Long> falsePositives = falsePositives("user", 3);
        List<Long> plainFalsePositives = falsePositives("plain", 3);
        TestHttp one = http(0);
        TestHttp two = http(1);

        AttackResult attack = attack(List.of(one, two), falsePositives, plainFalsePositives);

        assertThat(attack.realKeysFailed.get()).as("real users not served during the attack").isZero();
        assertThat(attack.realKeysServed.get()).isPositive();
        for (long key : falsePositives) {
            // One instance's miss spares the other's query too (shared): one or two queries in all.
            assertThat(queries(0, "user", key) + queries(1, "user", key)).as("queries of false positive %s", key)
                    .isPositive();
        }
        for (int instance = 0; instance < 2; instance++) {
            Users users = instances.get(instance).getBean(Users.class);
            for (long key : falsePositives) {
                assertThat(users.queries("user", key)).as("queries of false positive %s on instance %s", key, instance)
                        .isLessThanOrEqualTo(1L);
            }
            // Random absent keys: each passes the filter (and is queried, once) only as a false positive.
            assertThat(users.queriesOutside("user", falsePositives)).as("queries of random absent keys")
                    .isLessThan(attack.randomRequests.get() / 20);
            assertThat(users.maxQueriesOfOneKey("user", falsePositives))
                    .as("no random absent key queried twice on one instance").isLessThanOrEqualTo(1);
        }
        long plainQueries = plainFalsePositives.stream()
                .mapToLong(key -> queries(0, "plain", key) + queries(1, "plain", key)).sum();
        assertThat(plainQueries).as("without remembered misses every request for a false positive is a query")
                .isGreaterThan(attack.plainFalsePositiveRequests.get() * 9 / 10);
        assertThat(remembered(0) + remembered(1)).as("checks counted as blocked, reason=remembered")
                .isGreaterThan(attack.falsePositiveRequests.get() / 2);

        // A user signs up with an id the attacker hammered, through the other instance: served at once.
        long created = falsePositives.get(0);
        ResponseEntity<String> signUp = two.post("/users/" + created);
        assertThat(signUp.getStatusCode().value()).isEqualTo(201);
        ResponseEntity<String> lookup = one.get("/users/" + created);
        assertThat(lookup.getStatusCode().value()).as("created on the other instance, looked up right after")
                .isEqualTo(200);
        assertThat(lookup.getBody()).isEqualTo("user " + created);
        assertThat(two.get("/users/" + created).getStatusCode().value()).isEqualTo(200);
        assertThat(one.get("/users/" + falsePositives.get(1)).getStatusCode().value())
                .as("the other false positives stay remembered").isEqualTo(404);
        assertThat(queries(0, "user", falsePositives.get(1))).isLessThanOrEqualTo(1);
    }

    @Test
    void everyShapeOfNotFoundIsRememberedButAFailureOrATransactionIsNot() {
        List<Long> keys = falsePositives("user", 6, 200_000);
        List<Long> asyncKeys = falsePositives("async", 2, 200_000);
        Users users = instances.get(0).getBean(Users.class);
        TransactionTemplate transactions = instances.get(0).getBean(TransactionTemplate.class);

        assertThatThrownBy(() -> users.findOrFail(keys.get(0))).isInstanceOf(EmptyResultDataAccessException.class);
        assertThatThrownBy(() -> users.findOrFail(keys.get(0))).isInstanceOf(BloomGuardRejectedException.class);

        assertThatThrownBy(() -> users.findBroken(keys.get(1))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> users.findBroken(keys.get(1))).as("a failure is not a miss")
                .isInstanceOf(IllegalStateException.class);

        assertThat(users.findLater(asyncKeys.get(0)).blockOptional()).isEmpty();
        assertThatThrownBy(() -> users.findLater(asyncKeys.get(0)).block())
                .isInstanceOf(BloomGuardRejectedException.class);

        assertThat(users.findAsync(asyncKeys.get(1)).join()).isEmpty();
        assertThatThrownBy(() -> users.findAsync(asyncKeys.get(1)).join())
                .hasCauseInstanceOf(BloomGuardRejectedException.class);

        // A transaction may read a snapshot older than its check: what it did not find is not remembered.
        Optional<String> inTransaction = transactions.execute(status -> users.find(keys.get(4)));
        assertThat(inTransaction).isEmpty();
        assertThat(users.find(keys.get(4))).isEmpty();
        assertThatThrownBy(() -> users.find(keys.get(4))).isInstanceOf(BloomGuardRejectedException.class);

        assertThat(users.queries("user", keys.get(0))).as("findOrFail, remembered").isEqualTo(1);
        assertThat(users.queries("user", keys.get(1))).isEqualTo(2);
        assertThat(users.queries("async", asyncKeys.get(0))).isEqualTo(1);
        assertThat(users.queries("async", asyncKeys.get(1))).isEqualTo(1);
        assertThat(users.queries("user", keys.get(4))).isEqualTo(2);
        // A user without orders exists: an empty list is no miss (a rejection
        // would turn the next empty list into a 404).
        assertThat(users.findOrders(77L)).isEmpty();
        assertThat(users.findOrders(77L)).isEmpty();
        assertThat(users.queries("orders", 77L)).isEqualTo(2);
        assertThat(users.find(77L)).contains("user 77");
        // A miss is remembered for the lookup that found nothing: another lookup of the key still runs.
        assertThat(users.find(keys.get(0))).as("find after findOrFail's miss").isEmpty();
        assertThat(users.queries("user", keys.get(0))).isEqualTo(2);
        // A method that returns nothing never has a miss.
        users.touch(keys.get(5));
        users.touch(keys.get(5));
        assertThat(users.queries("touch", keys.get(5))).isEqualTo(2);
        // Real users, asked the same ways, are served every time.
        for (long id : List.of(1L, 42L, 4_999L)) {
            for (int call = 0; call < 3; call++) {
                assertThat(users.find(id)).contains("user " + id);
                assertThat(users.findOrFail(id)).isEqualTo("user " + id);
                assertThat(users.findLater(id).block()).isEqualTo("user " + id);
                assertThat(users.findAsync(id).join()).contains("user " + id);
            }
        }
        // An absent key that nobody remembered: the filter blocks it on its own, without a query.
        long absent = LongStream.range(300_000, 400_000)
                .filter(id -> instances.get(0).getBean(BloomFilterRegistry.class).filter("user").check(id)
                        == Membership.ABSENT).findFirst().orElseThrow();
        assertThatThrownBy(() -> users.find(absent)).isInstanceOf(BloomGuardRejectedException.class);
        assertThat(users.queries("user", absent)).isZero();
    }

    @Test
    void aKeyAddedInsideALongTransactionIsForgottenAgainWhenItCommits() throws Exception {
        long id = 7_000_001L;
        Users creating = instances.get(1).getBean(Users.class);
        Users looking = instances.get(0).getBean(Users.class);
        RedisBloomFilter filter = instances.get(0).getBean(BloomFilterRegistry.class).filter("user");
        ExecutorService elsewhere = Executors.newSingleThreadExecutor();
        try {
            instances.get(1).getBean(TransactionTemplate.class).executeWithoutResult(status -> {
                creating.create(id); // @BloomPut: the add (and its forget) come before the commit
                // The transaction goes on for longer than the add's mark lives:
                instances.get(0).getBean(StringRedisTemplate.class)
                        .delete(MissKeys.added(filter.keys(), 0, MissKeys.digest(id)));
                try {
                    // Elsewhere the row is not visible yet: the miss is remembered, and rejects.
                    assertThat(elsewhere.submit(() -> looking.find(id)).get(10, TimeUnit.SECONDS)).isEmpty();
                    assertThatThrownBy(() -> elsewhere.submit(() -> looking.find(id)).get(10, TimeUnit.SECONDS))
                            .hasCauseInstanceOf(BloomGuardRejectedException.class);
                }
                catch (Exception ex) {
                    throw new AssertionError(ex);
                }
            });

            assertThat(looking.find(id)).as("committed a moment ago").contains("user " + id);
            assertThat(http(0).get("/users/" + id).getStatusCode().value()).isEqualTo(200);
        }
        finally {
            elsewhere.shutdownNow();
        }
    }

    private record AttackResult(AtomicInteger realKeysServed, AtomicInteger realKeysFailed,
            AtomicInteger falsePositiveRequests, AtomicInteger plainFalsePositiveRequests,
            AtomicInteger randomRequests) {
    }

    /**
     * {@value #ATTACKERS} threads, each sending {@value #REQUESTS_PER_ATTACKER} requests to either
     * instance: a false positive of each filter, a random absent id or, one time in ten, a real user.
     */
    private static AttackResult attack(List<TestHttp> targets, List<Long> falsePositives,
            List<Long> plainFalsePositives) throws Exception {
        AttackResult result = new AttackResult(new AtomicInteger(), new AtomicInteger(), new AtomicInteger(),
                new AtomicInteger(), new AtomicInteger());
        ExecutorService attackers = Executors.newFixedThreadPool(ATTACKERS);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int attacker = 0; attacker < ATTACKERS; attacker++) {
                running.add(attackers.submit(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int request = 0; request < REQUESTS_PER_ATTACKER; request++) {
                        TestHttp target = targets.get(random.nextInt(targets.size()));
                        int kind = random.nextInt(10);
                        if (kind == 0) {
                            long id = random.nextLong(1, USERS + 1);
                            ResponseEntity<String> response = target.get("/users/" + id);
                            (response.getStatusCode().value() == 200 && ("user " + id).equals(response.getBody())
                                    ? result.realKeysServed : result.realKeysFailed).incrementAndGet();
                        }
                        else if (kind <= 4) {
                            result.falsePositiveRequests.incrementAndGet();
                            long id = falsePositives.get(random.nextInt(falsePositives.size()));
                            assertThat(target.get("/users/" + id).getStatusCode().value()).isEqualTo(404);
                        }
                        else if (kind <= 6) {
                            result.plainFalsePositiveRequests.incrementAndGet();
                            long id = plainFalsePositives.get(random.nextInt(plainFalsePositives.size()));
                            assertThat(target.get("/plain/" + id).getStatusCode().value()).isEqualTo(404);
                        }
                        else {
                            result.randomRequests.incrementAndGet();
                            long id = random.nextLong(RANDOM_FROM, 1_000_000_000);
                            assertThat(target.get("/users/" + id).getStatusCode().value()).isEqualTo(404);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> attacker : running) {
                attacker.get(2, TimeUnit.MINUTES);
            }
        }
        finally {
            attackers.shutdownNow();
        }
        return result;
    }

    /** Ids above every user's that the filter passes: what an attacker finds by probing. */
    private static List<Long> falsePositives(String filter, int count) {
        return falsePositives(filter, count, 100_000);
    }

    private static List<Long> falsePositives(String filter, int count, long from) {
        BloomFilterRegistry registry = instances.get(0).getBean(BloomFilterRegistry.class);
        List<Long> found = LongStream.range(from, from + 100_000)
                .filter(id -> registry.filter(filter).check(id) == Membership.PRESENT).limit(count).boxed().toList();
        assertThat(found).hasSize(count);
        return found;
    }

    private static long queries(int instance, String filter, long key) {
        return instances.get(instance).getBean(Users.class).queries(filter, key);
    }

    private static double remembered(int instance) {
        return instances.get(instance).getBean(MeterRegistry.class).get("bloomguard.checks").tag("filter", "user")
                .tag("outcome", "blocked").tag("reason", "remembered").counter().count();
    }

    private static TestHttp http(int instance) {
        return new TestHttp(Integer.parseInt(instances.get(instance).getEnvironment().getProperty("local.server.port")));
    }

    private static ConfigurableApplicationContext start() {
        SpringApplicationBuilder builder = new SpringApplicationBuilder(App.class).web(WebApplicationType.SERVLET)
                .properties("server.port=0", "spring.jmx.enabled=false",
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + RealServers.redis().port(),
                        "spring.datasource.url=" + RealServers.postgres().jdbcUrl(),
                        "spring.datasource.username=" + RealServers.postgres().username(),
                        "spring.datasource.password=" + RealServers.postgres().password(),
                        "bloom-guard.key-prefix=attack",
                        "bloom-guard.redis-timeout=5s",
                        "bloom-guard.filters.user.expected-insertions=" + USERS,
                        "bloom-guard.filters.user.warmup.sql=SELECT id FROM " + TABLE,
                        "bloom-guard.filters.user.warmup.blocking=true",
                        "bloom-guard.filters.user.single-flight=true",
                        "bloom-guard.filters.user.negative-cache.enabled=true",
                        "bloom-guard.filters.user.negative-cache.ttl=10m",
                        "bloom-guard.filters.user.negative-cache.exceptions="
                                + "org.springframework.dao.EmptyResultDataAccessException",
                        "bloom-guard.filters.async.expected-insertions=" + USERS,
                        "bloom-guard.filters.async.warmup.sql=SELECT id FROM " + TABLE,
                        "bloom-guard.filters.async.warmup.blocking=true",
                        "bloom-guard.filters.async.negative-cache.enabled=true",
                        "bloom-guard.filters.plain.expected-insertions=" + USERS,
                        "bloom-guard.filters.plain.warmup.sql=SELECT id FROM " + TABLE,
                        "bloom-guard.filters.plain.warmup.blocking=true");
        // Two instances in one JVM: Boot re-initialising the JVM-wide logging system races (see GuardedApp).
        builder.application().setListeners(builder.application().getListeners().stream()
                .filter(listener -> !(listener instanceof LoggingApplicationListener)).toList());
        return builder.run();
    }

    /** Users in PostgreSQL, looked up and created through the guard; each instance counts its queries per key. */
    public static class Users {

        private final JdbcTemplate jdbc;
        private final Map<String, Map<Long, AtomicLong>> queries = new ConcurrentHashMap<>();

        Users(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @BloomGuard(filter = "user", key = "#id")
        public Optional<String> find(long id) {
            return query("user", id);
        }

        /** Throws {@code EmptyResultDataAccessException} for a missing user, which the filter's config names. */
        @BloomGuard(filter = "user", key = "#id")
        public String findOrFail(long id) {
            count("user", id);
            return jdbc.queryForObject("SELECT name FROM " + TABLE + " WHERE id = ?", String.class, id);
        }

        /** A user's orders: none, for every user; an empty list here says nothing about the user. */
        @BloomGuard(filter = "user", key = "#userId")
        public List<String> findOrders(long userId) {
            count("orders", userId);
            return List.of();
        }

        /** Returns nothing at all, so only an exception could mean "not found". */
        @BloomGuard(filter = "user", key = "#id")
        public void touch(long id) {
            count("touch", id);
        }

        /** Fails as a broken database would: an exception that does not mean "not found". */
        @BloomGuard(filter = "user", key = "#id")
        public String findBroken(long id) {
            count("user", id);
            throw new IllegalStateException("connection refused");
        }

        /** Guarded by filter {@code async}, as single flight shares blocking calls only. */
        @BloomGuard(filter = "async", key = "#id")
        public Mono<String> findLater(long id) {
            return Mono.fromCallable(() -> query("async", id).orElse(null));
        }

        @BloomGuard(filter = "async", key = "#id")
        public CompletableFuture<Optional<String>> findAsync(long id) {
            return CompletableFuture.supplyAsync(() -> query("async", id));
        }

        @BloomGuard(filter = "plain", key = "#id")
        public Optional<String> findPlain(long id) {
            return query("plain", id);
        }

        @BloomPut(filter = "user", key = "#id")
        public void create(long id) {
            jdbc.update("INSERT INTO " + TABLE + " (id, name) VALUES (?, ?)", id, "user " + id);
        }

        private void count(String filter, long id) {
            queries.computeIfAbsent(filter, name -> new ConcurrentHashMap<>())
                    .computeIfAbsent(id, key -> new AtomicLong()).incrementAndGet();
        }

        private Optional<String> query(String filter, long id) {
            count(filter, id);
            return jdbc.queryForList("SELECT name FROM " + TABLE + " WHERE id = ?", String.class, id).stream()
                    .findFirst();
        }

        long queries(String filter, long key) {
            AtomicLong count = queries.getOrDefault(filter, Map.of()).get(key);
            return count == null ? 0 : count.get();
        }

        /** Queries of the attacker's random ids other than {@code except}: the random absent keys that passed. */
        long queriesOutside(String filter, List<Long> except) {
            return queries.getOrDefault(filter, Map.of()).entrySet().stream()
                    .filter(entry -> entry.getKey() >= RANDOM_FROM && !except.contains(entry.getKey()))
                    .mapToLong(entry -> entry.getValue().get()).sum();
        }

        long maxQueriesOfOneKey(String filter, List<Long> except) {
            return queries.getOrDefault(filter, Map.of()).entrySet().stream()
                    .filter(entry -> entry.getKey() >= RANDOM_FROM && !except.contains(entry.getKey()))
                    .mapToLong(entry -> entry.getValue().get()).max().orElse(0);
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {

        @Bean
        Users users(JdbcTemplate jdbc) {
            return new Users(jdbc);
        }

        @Bean
        UsersController usersController(Users users) {
            return new UsersController(users);
        }
    }

    @RestController
    static class UsersController {

        private final Users users;

        UsersController(Users users) {
            this.users = users;
        }

        @GetMapping("/users/{id}")
        ResponseEntity<String> find(@PathVariable("id") long id) {
            return ResponseEntity.of(users.find(id));
        }

        @GetMapping("/plain/{id}")
        ResponseEntity<String> findPlain(@PathVariable("id") long id) {
            return ResponseEntity.of(users.findPlain(id));
        }

        @PostMapping("/users/{id}")
        ResponseEntity<Void> create(@PathVariable("id") long id) {
            users.create(id);
            return ResponseEntity.status(201).build();
        }
    }
}
