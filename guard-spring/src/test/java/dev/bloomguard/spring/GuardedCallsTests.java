package dev.bloomguard.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.DoubleSupplier;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.cache.concurrent.ConcurrentMapCache;
import org.springframework.cache.concurrent.ConcurrentMapCacheManager;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.spring.interceptor.BloomGuardAdvisor;
import dev.bloomguard.testsupport.AbsentKeys;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The whole path against real PostgreSQL and Redis: filters warmed from SQL at startup
 * ({@code BIGINT} and {@code UUID} keys), guarded interface methods, {@code @BloomPut},
 * return-empty shapes, null keys and the metrics.
 */
@SpringBootTest(classes = GuardedCallsTests.App.class, properties = {
        "bloom-guard.key-prefix=guarded",
        // Outcomes must not depend on a loaded CI machine; timeouts have tests of their own.
        "bloom-guard.redis-timeout=5s",
        "bloom-guard.filters.user.expected-insertions=200000",
        "bloom-guard.filters.user.fpp=0.01",
        "bloom-guard.filters.user.warmup.sql=SELECT id FROM guarded_users",
        "bloom-guard.filters.user.warmup.blocking=true",
        "bloom-guard.filters.user.warmup.fetch-size=5000",
        "bloom-guard.filters.quiet.expected-insertions=200000",
        "bloom-guard.filters.quiet.on-absent=return-empty",
        "bloom-guard.filters.quiet.warmup.sql=SELECT id FROM guarded_users",
        "bloom-guard.filters.quiet.warmup.blocking=true",
        "bloom-guard.filters.account.expected-insertions=10000",
        "bloom-guard.filters.account.warmup.sql=SELECT id FROM guarded_accounts",
        "bloom-guard.filters.account.warmup.blocking=true",
        "bloom-guard.filters.empty.expected-insertions=1000",
        "bloom-guard.filters.mirrored.expected-insertions=1000",
        "bloom-guard.filters.mirrored.local-mirror.enabled=true",
        "bloom-guard.filters.mirrored.local-mirror.max-memory=1MB" })
class GuardedCallsTests {

    /** Present user ids are the even numbers 2..400,000; odd numbers were never inserted. */
    private static final int USERS = 200_000;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        RealServers.execute("DROP TABLE IF EXISTS guarded_users", "DROP TABLE IF EXISTS guarded_accounts",
                "CREATE TABLE guarded_users (id BIGINT PRIMARY KEY)",
                "INSERT INTO guarded_users SELECT 2 * g FROM generate_series(1, " + USERS + ") g",
                "CREATE TABLE guarded_accounts (id UUID PRIMARY KEY)",
                "INSERT INTO guarded_accounts SELECT md5(g::text)::uuid FROM generate_series(1, 1000) g",
                "DROP TABLE IF EXISTS guarded_ledger", "CREATE TABLE guarded_ledger (id BIGINT PRIMARY KEY)");
        RealServers.registerRedis(registry);
        RealServers.registerPostgres(registry);
    }

    @Autowired
    UserDirectory users;

    @Autowired
    QuietDirectory quiet;

    @Autowired
    AccountDirectory accounts;

    @Autowired
    Users userImplementation;

    @Autowired
    BloomFilterRegistry registry;

    @Autowired
    MeterRegistry meters;

    @Autowired
    JdbcTemplate jdbc;

    @Autowired
    StoppedObservations observations;

    @Autowired
    Catalog catalog;

    @Autowired
    CountingCacheManager caches;

    @Autowired
    Ledger ledger;

    @Autowired
    PlatformTransactionManager transactionManager;

    @Test
    void warmedFilterHasNoFalseNegatives() {
        RedisBloomFilter filter = registry.filter("user");
        List<Long> all = jdbc.queryForList("SELECT id FROM guarded_users", Long.class);
        assertThat(all).hasSize(USERS);
        for (int from = 0; from < all.size(); from += 1000) {
            assertThat(filter.checkAll(all.subList(from, from + 1000))).containsOnly(Membership.PRESENT);
        }
        int before = userImplementation.calls();
        for (long id = 2; id <= 40_000; id += 2) {
            assertThat(users.findById(id)).contains(id);
        }
        assertThat(userImplementation.calls() - before).isEqualTo(20_000);
    }

    @BootIndependent
    @Test
    void blocksAbsentKeysWithoutCallingTheRepositoryAtTheConfiguredRate() {
        int before = userImplementation.calls();
        int blocked = 0;
        int passed = 0;
        for (long id = 1; id < 200_000; id += 2) {
            try {
                users.findById(id);
                passed++;
            }
            catch (BloomGuardRejectedException ex) {
                assertThat(ex.getFilter()).isEqualTo("user");
                assertThat(ex.getMessage()).doesNotContain(Long.toString(id));
                blocked++;
            }
        }
        assertThat(blocked + passed).isEqualTo(100_000);
        assertThat(userImplementation.calls() - before).as("only false positives reach the repository")
                .isEqualTo(passed);
        double measuredFpp = passed / 100_000.0;
        LoggerFactory.getLogger(GuardedCallsTests.class).info(
                "Measured fpp through @BloomGuard: {} false positives of 100000 absent keys = {} (configured 0.01)",
                passed, measuredFpp);
        assertThat(measuredFpp).as("measured fpp").isBetween(0.005, 0.015);
    }

    @Test
    void sameKeyPassesWhateverItsJavaType() {
        assertThat(users.findById(400_000L)).contains(400_000L);
        assertThat(users.findByBoxedId(400_000L)).isEqualTo(400_000L);
        assertThat(users.findByText("400000")).isEqualTo("400000");
        long absent = absentKeys(1).get(0);
        assertThatThrownBy(() -> users.findByText(Long.toString(absent))).isInstanceOf(BloomGuardRejectedException.class);
        assertThatThrownBy(() -> users.findByBoxedId(absent)).isInstanceOf(BloomGuardRejectedException.class);
        assertThatThrownBy(() -> users.findById(absent)).isInstanceOf(BloomGuardRejectedException.class);
    }

    @Test
    void uuidKeysWarmedFromPostgresPassAsUuidAndAsText() {
        List<UUID> ids = jdbc.queryForList("SELECT id FROM guarded_accounts", UUID.class);
        assertThat(ids).hasSize(1000);
        for (UUID id : ids) {
            assertThat(accounts.find(id)).contains(id.toString());
            assertThat(accounts.findByText(id.toString())).contains(id.toString());
        }
        int blocked = 0;
        for (int i = 0; i < 1000; i++) {
            try {
                accounts.find(UUID.randomUUID());
            }
            catch (BloomGuardRejectedException ex) {
                blocked++;
            }
        }
        assertThat(blocked).isGreaterThan(950);
    }

    @Test
    void keysAddedByBloomPutPassImmediately() {
        double added = meters.get("bloomguard.adds").tag("filter", "user").counter().count();
        for (int i = 0; i < 200; i++) {
            long id = users.create();
            assertThat(id % 2).isEqualTo(1);
            assertThat(users.findById(id)).contains(id);
        }
        List<Long> batch = users.createAll(50);
        for (long id : batch) {
            assertThat(users.findByBoxedId(id)).isEqualTo(id);
        }
        assertThat(meters.get("bloomguard.adds").tag("filter", "user").counter().count() - added)
                .as("keys added, a batch counting each of its keys").isEqualTo(250);
        assertThat(meters.get("bloomguard.adds.failed").tag("filter", "user").counter().count()).isZero();
    }

    @Test
    void startupLoadsAreTimedWithTheKeysTheyRead() {
        Timer swapped = meters.get("bloomguard.load.duration").tag("filter", "account")
                .tag("outcome", "swapped").timer();
        assertThat(swapped.count()).isEqualTo(1);
        assertThat(swapped.totalTime(TimeUnit.NANOSECONDS)).isPositive();
        assertThat(meters.get("bloomguard.load.keys").tag("filter", "account").tag("outcome", "swapped").summary()
                .totalAmount()).isEqualTo(1000);
        for (String outcome : new String[] { "refused", "failed" }) {
            assertThat(meters.get("bloomguard.load.duration").tag("filter", "account").tag("outcome", outcome)
                    .timer().count()).as(outcome).isZero();
        }
        assertThat(meters.get("bloomguard.filter.over.capacity").tag("filter", "account").gauge().value()).isZero();
    }

    @Test
    void nullKeysAreNotCheckedAndGoThrough() {
        double checksBefore = totalChecks("user");
        int before = userImplementation.calls();
        assertThat(users.findByBoxedId(null)).isNull();
        assertThat(userImplementation.calls() - before).isEqualTo(1);
        assertThat(totalChecks("user")).isEqualTo(checksBefore);
    }

    @Test
    void batchKeysAreRejectedOnlyWhenEveryElementIsAbsent() {
        assertThat(users.findAll(List.of(1L, 3L, 4L))).containsExactly(1L, 3L, 4L);
        assertThat(users.findAll(List.of())).isEmpty();
        List<Long> absent = absentKeys(12);
        assertThatThrownBy(() -> users.findAll(absent)).isInstanceOf(BloomGuardRejectedException.class);
        List<Long> mixed = new ArrayList<>(absent);
        mixed.add(4L);
        assertThat(users.findAll(mixed)).hasSize(13);
        assertThat(users.findAllArray(new long[] { 5L, 6L })).containsExactly(5L, 6L);
    }

    @Test
    void returnEmptyGivesTheEmptyValueOfTheReturnType() {
        long absent = firstAbsent();
        assertThat(quiet.optional(absent)).isEmpty();
        assertThat(quiet.list(absent)).isEmpty();
        assertThat(quiet.set(absent)).isEmpty();
        assertThat(quiet.map(absent)).isEmpty();
        assertThat(quiet.stream(absent)).isEmpty();
        assertThat(quiet.array(absent)).isEmpty();
        assertThat(quiet.optionalLong(absent)).isEmpty();
        assertThat(quiet.arrayList(absent)).isEmpty();
        assertThat(quiet.text(absent)).isNull();
        quiet.run(absent);
        assertThat(quiet.calls()).isZero();
        assertThat(quiet.optional(2)).contains(2L);
        assertThat(quiet.calls()).isEqualTo(1);
    }

    @Test
    void typeLevelAnnotationGuardsEveryPublicMethod() {
        long absent = firstAbsent();
        assertThatThrownBy(() -> users.typeLevel().first(absent)).isInstanceOf(BloomGuardRejectedException.class);
        assertThatThrownBy(() -> users.typeLevel().second(absent)).isInstanceOf(BloomGuardRejectedException.class);
        assertThat(users.typeLevel().first(2)).isEqualTo("first 2");
    }

    @Test
    void metricsCountEveryCheckByOutcome() {
        double passed = count("user", "passed");
        double blocked = count("user", "blocked");
        double passedDurations = duration("user", "passed").count();
        double blockedDurations = duration("user", "blocked").count();
        long absent = firstAbsent();
        for (int i = 0; i < 7; i++) {
            users.findById(2L * (i + 1));
        }
        for (int i = 0; i < 5; i++) {
            assertThatThrownBy(() -> users.findById(absent)).isInstanceOf(BloomGuardRejectedException.class);
        }
        assertThat(count("user", "passed") - passed).isEqualTo(7);
        assertThat(count("user", "blocked") - blocked).isEqualTo(5);
        assertThat(duration("user", "passed").count() - passedDurations).isEqualTo(7);
        assertThat(duration("user", "blocked").count() - blockedDurations).isEqualTo(5);
        assertThat(duration("user", "bypassed").count()).isZero();
        assertThat(count("user", "bypassed")).isZero();
        assertThat(meters.find("bloomguard.check").meters()).as("one latency timer: no second one from the observation")
                .isEmpty();
        assertThat(meters.find("bloomguard.check.active").meters()).isEmpty();
    }

    private Timer duration(String filter, String outcome) {
        return meters.get("bloomguard.check.duration").tag("filter", filter).tag("outcome", outcome).timer();
    }

    @Test
    void aRejectedCallShowsAsABlockedCheckObservationAndAnAddAsAPut() {
        Map<String, String> blocked = Map.of("name", "bloomguard.check", "filter", "user", "outcome", "blocked");
        Map<String, String> passed = Map.of("name", "bloomguard.check", "filter", "user", "outcome", "passed");
        Map<String, String> added = Map.of("name", "bloomguard.put", "filter", "user", "outcome", "added");
        long blockedBefore = observations.count(blocked);
        long passedBefore = observations.count(passed);
        long addedBefore = observations.count(added);
        long absent = firstAbsent();

        assertThatThrownBy(() -> users.findById(absent)).isInstanceOf(BloomGuardRejectedException.class);
        users.findById(2L);
        users.findById(4L);
        users.create();

        assertThat(observations.count(blocked) - blockedBefore).isEqualTo(1);
        assertThat(observations.count(passed) - passedBefore).isEqualTo(2);
        assertThat(observations.count(added) - addedBefore).isEqualTo(1);
    }

    @Test
    void checksOfAFilterThatWasNeverLoadedAreBypassed() {
        RedisBloomFilter filter = registry.filter("user");
        assertThat(filter.check(2L)).isEqualTo(Membership.PRESENT);
        double bypassed = count("empty", "bypassed");
        assertThat(users.fromEmptyFilter(12345L)).isEqualTo(12345L);
        assertThat(count("empty", "bypassed") - bypassed).isEqualTo(1);
        assertThat(meters.get("bloomguard.checks").tag("filter", "empty").tag("outcome", "bypassed")
                .tag("reason", "not-ready").counter().count()).as("reason=not-ready").isEqualTo(count("empty", "bypassed"));
    }

    @Test
    void withTheDefaultOrderTheGuardRunsBeforeTheCacheSoAnAbsentKeyNeverReachesIt() {
        long present = 400_000;
        long absent = firstAbsent();
        double checks = totalChecks("user");
        assertThat(catalog.find(present)).isEqualTo("user " + present);
        assertThat(catalog.find(present)).as("the second call, a cache hit").isEqualTo("user " + present);
        assertThat(catalog.calls()).as("the method ran once; the cache answered the second call").isEqualTo(1);
        assertThat(totalChecks("user") - checks).as("both calls were checked, the cache hit too").isEqualTo(2);

        int lookups = caches.lookups();
        assertThatThrownBy(() -> catalog.find(absent)).isInstanceOf(BloomGuardRejectedException.class);
        assertThat(caches.lookups()).as("cache lookups for the absent key").isEqualTo(lookups);
        assertThat(catalog.calls()).isEqualTo(1);
    }

    @Test
    void aCacheOrderedOutsideTheGuardAnswersItsHitsWithoutACheck() {
        try (ConfigurableApplicationContext outside = new SpringApplicationBuilder(CacheOutsideTheGuard.class)
                .web(WebApplicationType.NONE)
                .properties("spring.data.redis.host=" + RealServers.redis().host(),
                        "spring.data.redis.port=" + RealServers.redis().port(),
                        "spring.datasource.url=" + RealServers.postgres().jdbcUrl(),
                        "spring.datasource.username=" + RealServers.postgres().username(),
                        "spring.datasource.password=" + RealServers.postgres().password(),
                        "spring.jmx.enabled=false", "bloom-guard.key-prefix=cache-outside",
                        "bloom-guard.redis-timeout=5s", "bloom-guard.filters.product.expected-insertions=1000")
                .run()) {
            outside.getBean(BloomFilterRegistry.class).filter("product").load(Stream.of(1L, 2L, 3L));
            Products products = outside.getBean(Products.class);
            MeterRegistry outsideMeters = outside.getBean(MeterRegistry.class);
            DoubleSupplier checks = () -> outsideMeters.get("bloomguard.checks")
                    .tag("filter", "product").counters().stream().mapToDouble(counter -> counter.count()).sum();

            assertThat(products.find(1)).isEqualTo("product 1");
            assertThat(checks.getAsDouble()).isEqualTo(1);
            assertThat(products.find(1)).as("a cache hit").isEqualTo("product 1");
            assertThat(checks.getAsDouble()).as("the cache hit was not checked").isEqualTo(1);
            assertThat(products.calls()).isEqualTo(1);

            long absent = LongStream.iterate(1_001, id -> id + 1)
                    .filter(id -> outside.getBean(BloomFilterRegistry.class).filter("product").check(id)
                            == Membership.ABSENT).findFirst().getAsLong();
            assertThatThrownBy(() -> products.find(absent)).isInstanceOf(BloomGuardRejectedException.class);
            assertThatThrownBy(() -> products.find(absent)).as("a rejection is not cached: checked again")
                    .isInstanceOf(BloomGuardRejectedException.class);
            assertThat(checks.getAsDouble()).isEqualTo(3);
            assertThat(products.calls()).isEqualTo(1);
        }
    }

    @Test
    void aTransactionalBloomPutAddsItsKeyBeforeTheCommit() {
        long id = ledger.open();
        assertThat(ledger.keyKnownBeforeCommit()).as("the key was in the filter when the transaction committed")
                .containsExactly(true);
        assertThat(ledger.exists(id)).isTrue();
    }

    @Test
    void aRolledBackBloomPutLeavesItsKeyInTheFilterAsAFalsePositive() {
        long id = new TransactionTemplate(transactionManager).execute(status -> {
            long opened = ledger.open();
            status.setRollbackOnly();
            return opened;
        });
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM guarded_ledger WHERE id = ?", Long.class, id))
                .as("the row rolled back").isZero();
        assertThat(registry.filter("user").check(id)).as("its key stays in the filter").isEqualTo(Membership.PRESENT);
        assertThat(ledger.exists(id)).as("so the lookup passes the guard and finds no row").isFalse();
    }

    @Test
    void aTransactionalBloomPutMethodThatThrowsAddsNothing() {
        long id = LongStream.iterate(800_000_001, next -> next + 2)
                .filter(next -> registry.filter("user").check(next) == Membership.ABSENT).findFirst().getAsLong();
        assertThatThrownBy(() -> ledger.openAndFail(id)).isInstanceOf(IllegalStateException.class);
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM guarded_ledger WHERE id = ?", Long.class, id)).isZero();
        assertThat(registry.filter("user").check(id)).isEqualTo(Membership.ABSENT);
        assertThatThrownBy(() -> ledger.exists(id)).isInstanceOf(BloomGuardRejectedException.class);
    }

    @Test
    void everyMetricTheDashboardAndThePromQlExamplesUseIsScraped() throws IOException {
        String scrape = meters instanceof PrometheusMeterRegistry prometheus ? prometheus.scrape() : "";
        assertThat(scrape).as("the context's registry is Prometheus's (micrometer-registry-prometheus, test scope)")
                .contains("bloomguard_checks_total");
        MetricQueries.assertEveryQueryMatchesTheScrape(scrape);
    }

    private long firstAbsent() {
        return absentKeys(1).get(0);
    }

    /** Odd ids (never inserted) that neither filter reports as a false positive. */
    private List<Long> absentKeys(int count) {
        return AbsentKeys.first(count, LongStream.iterate(1, id -> id + 2), id -> registry.filter("user").check(id) == Membership.ABSENT
                && registry.filter("quiet").check(id) == Membership.ABSENT);
    }

    private double count(String filter, String outcome) {
        return meters.get("bloomguard.checks").tag("filter", filter).tag("outcome", outcome).counters().stream()
                .mapToDouble(counter -> counter.count()).sum();
    }

    private double totalChecks(String filter) {
        return meters.get("bloomguard.checks").tag("filter", filter).counters().stream()
                .mapToDouble(counter -> counter.count()).sum();
    }

    public interface UserDirectory {

        @BloomGuard(filter = "user", key = "#id")
        Optional<Long> findById(long id);

        @BloomGuard(filter = "user", key = "#p0")
        Long findByBoxedId(Long id);

        @BloomGuard(filter = "user", key = "#root.args[0]")
        String findByText(String id);

        @BloomGuard(filter = "user", key = "#ids")
        List<Long> findAll(Collection<Long> ids);

        @BloomGuard(filter = "user", key = "#a0")
        long[] findAllArray(long[] ids);

        @BloomGuard(filter = "empty", key = "#id")
        Long fromEmptyFilter(Long id);

        @BloomPut(filter = "user", key = "#result")
        long create();

        @BloomPut(filter = "user", key = "#result.?[#this > 0]")
        List<Long> createAll(int count);

        TypeLevel typeLevel();
    }

    @BloomGuard(filter = "user", key = "#p0")
    public interface TypeLevel {

        String first(long id);

        String second(long id);
    }

    static class TypeLevelService implements TypeLevel {

        @Override
        public String first(long id) {
            return "first " + id;
        }

        @Override
        public String second(long id) {
            return "second " + id;
        }
    }

    static class Users implements UserDirectory {

        private final AtomicInteger calls = new AtomicInteger();
        private final AtomicLong nextId = new AtomicLong(1_000_001);
        private final TypeLevel typeLevel;

        Users(TypeLevel typeLevel) {
            this.typeLevel = typeLevel;
        }

        public int calls() {
            return calls.get();
        }

        @Override
        public Optional<Long> findById(long id) {
            calls.incrementAndGet();
            return Optional.of(id);
        }

        @Override
        public Long findByBoxedId(Long id) {
            calls.incrementAndGet();
            return id;
        }

        @Override
        public String findByText(String id) {
            calls.incrementAndGet();
            return id;
        }

        @Override
        public List<Long> findAll(Collection<Long> ids) {
            calls.incrementAndGet();
            return new ArrayList<>(ids);
        }

        @Override
        public long[] findAllArray(long[] ids) {
            calls.incrementAndGet();
            return ids;
        }

        @Override
        public Long fromEmptyFilter(Long id) {
            return id;
        }

        @Override
        public long create() {
            return nextId.getAndAdd(2);
        }

        @Override
        public List<Long> createAll(int count) {
            return LongStream.range(0, count).map(i -> nextId.getAndAdd(2)).boxed().toList();
        }

        @Override
        public TypeLevel typeLevel() {
            return typeLevel;
        }
    }

    public interface QuietDirectory {

        @BloomGuard(filter = "quiet", key = "#id")
        Optional<Long> optional(long id);

        @BloomGuard(filter = "quiet", key = "#id")
        List<Long> list(long id);

        @BloomGuard(filter = "quiet", key = "#id")
        Set<Long> set(long id);

        @BloomGuard(filter = "quiet", key = "#id")
        Map<Long, String> map(long id);

        @BloomGuard(filter = "quiet", key = "#id")
        Stream<Long> stream(long id);

        @BloomGuard(filter = "quiet", key = "#id")
        Long[] array(long id);

        @BloomGuard(filter = "quiet", key = "#id")
        OptionalLong optionalLong(long id);

        @BloomGuard(filter = "quiet", key = "#id")
        ArrayList<Long> arrayList(long id);

        @BloomGuard(filter = "quiet", key = "#id")
        String text(long id);

        @BloomGuard(filter = "quiet", key = "#id")
        void run(long id);

        int calls();
    }

    static class Quiet implements QuietDirectory {

        private final AtomicInteger calls = new AtomicInteger();

        private <T> T called(T value) {
            calls.incrementAndGet();
            return value;
        }

        @Override
        public Optional<Long> optional(long id) {
            return called(Optional.of(id));
        }

        @Override
        public List<Long> list(long id) {
            return called(List.of(id));
        }

        @Override
        public Set<Long> set(long id) {
            return called(Set.of(id));
        }

        @Override
        public Map<Long, String> map(long id) {
            return called(Map.of(id, "x"));
        }

        @Override
        public Stream<Long> stream(long id) {
            return called(Stream.of(id));
        }

        @Override
        public Long[] array(long id) {
            return called(new Long[] { id });
        }

        @Override
        public OptionalLong optionalLong(long id) {
            return called(OptionalLong.of(id));
        }

        @Override
        public ArrayList<Long> arrayList(long id) {
            return called(new ArrayList<>(List.of(id)));
        }

        @Override
        public String text(long id) {
            return called("text");
        }

        @Override
        public void run(long id) {
            called(id);
        }

        @Override
        public int calls() {
            return calls.get();
        }
    }

    public interface AccountDirectory {

        @BloomGuard(filter = "account", key = "#id")
        Optional<String> find(UUID id);

        @BloomGuard(filter = "account", key = "#id")
        Optional<String> findByText(String id);
    }

    static class Accounts implements AccountDirectory {

        @Override
        public Optional<String> find(UUID id) {
            return Optional.of(id.toString());
        }

        @Override
        public Optional<String> findByText(String id) {
            return Optional.of(id);
        }
    }

    /** A cached lookup behind the guard, in the order the starter gives by default (bloom-guard.order). */
    public static class Catalog {

        private final AtomicInteger calls = new AtomicInteger();

        @BloomGuard(filter = "user", key = "#id")
        @Cacheable("catalog")
        public String find(long id) {
            calls.incrementAndGet();
            return "user " + id;
        }

        int calls() {
            return calls.get();
        }
    }

    /** The application's cache, counting the lookups it is asked for. */
    static final class CountingCacheManager extends ConcurrentMapCacheManager {

        private final AtomicInteger lookups = new AtomicInteger();

        CountingCacheManager() {
            super("catalog");
        }

        @Override
        protected Cache createConcurrentMapCache(String name) {
            return new ConcurrentMapCache(name) {
                @Override
                protected Object lookup(Object key) {
                    lookups.incrementAndGet();
                    return super.lookup(key);
                }
            };
        }

        int lookups() {
            return lookups.get();
        }
    }

    /** Writes rows in transactions with {@code @BloomPut}; notes, before each commit, whether the key was in the filter. */
    public static class Ledger {

        private static final AtomicLong NEXT = new AtomicLong(900_000_001);

        private final JdbcTemplate jdbc;
        private final BloomFilterRegistry filters;
        private final Queue<Boolean> knownBeforeCommit = new ConcurrentLinkedQueue<>();

        Ledger(JdbcTemplate jdbc, BloomFilterRegistry filters) {
            this.jdbc = jdbc;
            this.filters = filters;
        }

        @Transactional
        @BloomPut(filter = "user", key = "#result")
        public long open() {
            long id = NEXT.getAndAdd(2);
            jdbc.update("INSERT INTO guarded_ledger (id) VALUES (?)", id);
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void beforeCommit(boolean readOnly) {
                    knownBeforeCommit.add(filters.filter("user").mightContain(id));
                }
            });
            return id;
        }

        @Transactional
        @BloomPut(filter = "user", key = "#result")
        public long openAndFail(long id) {
            jdbc.update("INSERT INTO guarded_ledger (id) VALUES (?)", id);
            throw new IllegalStateException("the write fails after the insert");
        }

        @BloomGuard(filter = "user", key = "#id")
        public boolean exists(long id) {
            return jdbc.queryForObject("SELECT COUNT(*) FROM guarded_ledger WHERE id = ?", Long.class, id) > 0;
        }

        List<Boolean> keyKnownBeforeCommit() {
            List<Boolean> known = new ArrayList<>(knownBeforeCommit);
            knownBeforeCommit.clear();
            return known;
        }
    }

    /** Caching ordered before the guard: {@code @EnableCaching(order = ...)} below {@code bloom-guard.order}. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EnableCaching(order = BloomGuardAdvisor.DEFAULT_ORDER - 1)
    static class CacheOutsideTheGuard {

        @Bean
        CacheManager cacheManager() {
            return new ConcurrentMapCacheManager("products");
        }

        @Bean
        Products products() {
            return new Products();
        }
    }

    public static class Products {

        private final AtomicInteger calls = new AtomicInteger();

        @Cacheable("products")
        @BloomGuard(filter = "product", key = "#id")
        public String find(long id) {
            calls.incrementAndGet();
            return "product " + id;
        }

        int calls() {
            return calls.get();
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EnableCaching
    static class App {

        /** The registry Prometheus scrapes, declared here so Boot 3.5 and 4.0 alike use it for every meter. */
        @Bean
        PrometheusMeterRegistry prometheusMeterRegistry() {
            return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        }

        @Bean
        CountingCacheManager cacheManager() {
            return new CountingCacheManager();
        }

        @Bean
        Catalog catalog() {
            return new Catalog();
        }

        @Bean
        Ledger ledger(JdbcTemplate jdbc, BloomFilterRegistry filters) {
            return new Ledger(jdbc, filters);
        }

        @Bean
        TypeLevel typeLevel() {
            return new TypeLevelService();
        }

        @Bean
        Users users(TypeLevel typeLevel) {
            return new Users(typeLevel);
        }

        @Bean
        Quiet quiet() {
            return new Quiet();
        }

        @Bean
        Accounts accounts() {
            return new Accounts();
        }

        /** Boot adds every ObservationHandler bean to the application's ObservationRegistry, as a tracer's is. */
        @Bean
        StoppedObservations stoppedObservations() {
            return new StoppedObservations();
        }
    }

    /** The name and low-cardinality key values of every observation stopped, as a tracer would see its spans. */
    static final class StoppedObservations implements ObservationHandler<Observation.Context> {

        private final Queue<Map<String, String>> stopped = new ConcurrentLinkedQueue<>();

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }

        @Override
        public void onStop(Observation.Context context) {
            Map<String, String> seen = new TreeMap<>();
            seen.put("name", context.getName());
            context.getLowCardinalityKeyValues().forEach(keyValue -> seen.put(keyValue.getKey(), keyValue.getValue()));
            stopped.add(seen);
        }

        long count(Map<String, String> expected) {
            return stopped.stream().filter(seen -> seen.equals(expected)).count();
        }
    }
}
