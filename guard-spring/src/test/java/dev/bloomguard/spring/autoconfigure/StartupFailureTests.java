package dev.bloomguard.spring.autoconfigure;

import static dev.bloomguard.spring.autoconfigure.StartupFailures.failsWith;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import dev.bloomguard.spring.BootNames;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.io.ClassPathResource;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.hash.KeyHash;
import dev.bloomguard.core.hash.KeyType;
import dev.bloomguard.core.rollout.FilterResize;
import dev.bloomguard.core.rollout.GenerationDescriptor;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BloomGuard;
import dev.bloomguard.spring.BloomKeySource;
import dev.bloomguard.spring.BloomPut;
import dev.bloomguard.spring.RealServers;
import dev.bloomguard.spring.warmup.FilterWarmer;
import dev.bloomguard.spring.warmup.KeySource;
import dev.bloomguard.spring.warmup.RepositoryKeySource;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

/** Every configuration mistake DESIGN.md lists fails startup with a message naming the property or method. */
class StartupFailureTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, BootNames.redisAutoConfiguration(),
                    BloomGuardAutoConfiguration.class))
            .withPropertyValues(RealServers.redisProperties())
            .withPropertyValues("bloom-guard.key-prefix=startup", "bloom-guard.filters.user.expected-insertions=1000",
                    "bloom-guard.filters.quiet.expected-insertions=1000", "bloom-guard.filters.quiet.on-absent=return-empty");

    @Test
    void startsWhenEverythingIsValid() {
        runner.withUserConfiguration(ValidUse.class).run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void failsOnAHashSecretThatIsNotThirtyTwoHexDigitsWithoutQuotingIt() {
        runner.withPropertyValues("bloom-guard.filters.user.hash=siphash",
                "bloom-guard.filters.user.hash-secret=correct-horse-battery-staple")
                .run(failsWith("bloom-guard.filters.user.hash-secret", "32 hexadecimal digits", "28 characters"));
        runner.withPropertyValues("bloom-guard.filters.user.hash=siphash",
                "bloom-guard.filters.user.hash-secret=correct-horse-battery-staple").run(context -> {
                    for (Throwable cause = context.getStartupFailure(); cause != null; cause = cause.getCause()) {
                        assertThat(String.valueOf(cause.getMessage())).doesNotContain("horse");
                    }
                });
    }

    @Test
    void failsOnAHashSecretForAFilterThatDoesNotUseSiphash() {
        runner.withPropertyValues("bloom-guard.filters.user.hash-secret=000102030405060708090a0b0c0d0e0f")
                .run(failsWith("bloom-guard.filters.user.hash-secret is set but bloom-guard.filters.user.hash is murmur3"));
    }

    @Test
    void startsASiphashFilterUnderItsConfiguredSecretsKeys() {
        runner.withUserConfiguration(ValidUse.class).withPropertyValues("bloom-guard.filters.user.hash=siphash",
                "bloom-guard.filters.user.hash-secret=000102030405060708090A0B0C0D0E0F").run(context -> {
                    assertThat(context).hasNotFailed();
                    RedisBloomFilter user = context.getBean(BloomFilterRegistry.class).filter("user");
                    assertThat(user.hash()).isEqualTo(KeyHash.sipHash("000102030405060708090a0b0c0d0e0f"));
                    assertThat(user.keys().live()).isEqualTo("startup:v1:{user:m9600k7:sip-62c27cf4:0}");
                    assertThat(context.getBean(BloomFilterRegistry.class).filter("quiet").hash())
                            .isEqualTo(KeyHash.murmur3());
                });
    }

    @Test
    void failsOnAutoResizeWithoutAKeySourceToRebuildFrom() {
        runner.withPropertyValues("bloom-guard.filters.user.rebuild.auto-resize=true")
                .run(failsWith("bloom-guard.filters.user.rebuild.auto-resize is on but the filter has no key source",
                        "bloom-guard.filters.user.warmup.sql"));
    }

    /**
     * A grown geometry recorded in Redis is the filter's size as much as a configured one: beyond
     * a lowered {@code max-filter-size} it fails startup, naming the property and the decision.
     */
    @Test
    void failsWhenAGeometryAutoResizeChoseExceedsMaxFilterSize() {
        String from = GenerationDescriptor.of(FilterGeometry.of(1_000, 0.01), null);
        String grown = GenerationDescriptor.of(FilterGeometry.of(1_000_000, 0.01), null);
        String decision = FilterResize.key("startup-resized", "user", from);
        try (RedisClient client = RedisClient.create("redis://127.0.0.1:" + RealServers.redis().port());
                StatefulRedisConnection<String, String> admin = client.connect()) {
            admin.sync().set(decision, grown);
            runner.withPropertyValues("bloom-guard.key-prefix=startup-resized", "bloom-guard.max-filter-size=1MB")
                    .run(failsWith("bloom-guard.filters.user: auto-resize grew it to expected-insertions 1000000",
                            decision, "more than bloom-guard.max-filter-size"));
            runner.withPropertyValues("bloom-guard.key-prefix=startup-resized").run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(BloomFilterRegistry.class).filter("user").geometry().expectedInsertions())
                        .as("within the default limit, the grown geometry").isEqualTo(1_000_000);
            });
            admin.sync().del(decision);
        }
    }

    @Test
    void failsOnUnknownFilterName() {
        runner.withUserConfiguration(UnknownFilter.class)
                .run(failsWith("@BloomGuard on", "UnknownFilterService.find", "filter 'users' is not configured",
                        "configured: user, quiet"));
    }

    @Test
    void failsOnUnknownFilterNameInBloomPut() {
        runner.withUserConfiguration(UnknownPutFilter.class)
                .run(failsWith("@BloomPut on", "UnknownPutFilterService.save", "filter 'nope' is not configured"));
    }

    @Test
    void failsOnABadMethodThatIsNotTheClassFirstGuardedOne() {
        // Interface-based (JDK) proxies: unlike CGLIB's, their creation does not look at every method.
        runner.withUserConfiguration(SecondMethodBad.class).withPropertyValues("spring.aop.proxy-target-class=false")
                .run(failsWith("findToo", "filter 'users' is not configured"));
    }

    @Test
    void failsOnBadSpel() {
        runner.withUserConfiguration(BadSpel.class)
                .run(failsWith("BadSpelService.find", "'#id +' is not valid SpEL"));
    }

    @Test
    void failsOnKeyNamingNoParameter() {
        runner.withUserConfiguration(UnknownParameter.class)
                .run(failsWith("UnknownParameterService.find", "'#userId' names no parameter", "[id]"));
    }

    @Test
    void failsOnResultInGuard() {
        runner.withUserConfiguration(ResultInGuard.class)
                .run(failsWith("ResultInGuardService.find", "uses #result"));
    }

    @Test
    void failsOnArgumentIndexOutOfRange() {
        runner.withUserConfiguration(IndexOutOfRange.class)
                .run(failsWith("IndexOutOfRangeService.find", "refers to argument 3", "1 parameter(s)"));
    }

    @Test
    void failsOnReturnEmptyWithPrimitiveReturnType() {
        runner.withUserConfiguration(PrimitiveReturnEmpty.class)
                .run(failsWith("PrimitiveReturnEmptyService.count", "return-empty", "returns long"));
    }

    @Test
    void failsOnAFutureThatIsNotACompletionStage() {
        runner.withUserConfiguration(PlainFuture.class)
                .run(failsWith("PlainFutureService.find", "java.util.concurrent.Future", "CompletableFuture"));
    }

    @Test
    void failsOnAKeyParameterWhoseDeclaredTypeCannotBeAKey() {
        runner.withUserConfiguration(MapKey.class)
                .run(failsWith("MapKeyService.byMap", "'#ids'", "java.util.Map"));
        runner.withUserConfiguration(StreamKey.class)
                .run(failsWith("StreamKeyService.byStream", "'#p0'", "java.util.stream.Stream"));
        runner.withUserConfiguration(PathKey.class)
                .run(failsWith("PathKeyService.byPath", "'#path'", "java.nio.file.Path"));
        runner.withUserConfiguration(TextlessKey.class)
                .run(failsWith("TextlessKeyService.byTextless", "'#key'", Textless.class.getName(), "toString"));
    }

    @Test
    void failsOnSingleFlightForAMethodThatDoesNotBlock() {
        runner.withPropertyValues("bloom-guard.filters.user.single-flight=true")
                .withUserConfiguration(AsyncKey.class)
                .run(failsWith("AsyncKeyService.byId", "filter 'user' has single-flight on",
                        "java.util.concurrent.CompletableFuture", "bloom-guard.filters.user.single-flight"));
        runner.withPropertyValues("bloom-guard.filters.user.single-flight=true")
                .withUserConfiguration(StreamResult.class)
                .run(failsWith("StreamResultService.byId", "filter 'user' has single-flight on",
                        "java.util.stream.Stream, which only one caller can read"));
    }

    @Test
    void failsOnFppOutsideZeroOne() {
        runner.withPropertyValues("bloom-guard.filters.user.fpp=1.5")
                .run(failsWith("bloom-guard.filters.user.fpp (1.5) must be in (0, 1)"));
        runner.withPropertyValues("bloom-guard.filters.user.fpp=0")
                .run(failsWith("bloom-guard.filters.user.fpp (0.0) must be in (0, 1)"));
    }

    @Test
    void failsOnExpectedInsertionsBelowOne() {
        runner.withPropertyValues("bloom-guard.filters.user.expected-insertions=0")
                .run(failsWith("bloom-guard.filters.user.expected-insertions (0) must be at least 1"));
    }

    @Test
    void failsOnAMaxBatchSizeBelowOne() {
        runner.withPropertyValues("bloom-guard.max-batch-size=0")
                .run(failsWith("bloom-guard.max-batch-size (0) must be at least 1"));
    }

    @Test
    void failsOnACircuitBreakerThatCannotWork() {
        runner.withPropertyValues("bloom-guard.circuit-breaker.failure-rate=40")
                .run(failsWith("bloom-guard.circuit-breaker: failure rate (40.0) must be in (0, 1]"));
        runner.withPropertyValues("bloom-guard.circuit-breaker.minimum-calls=200")
                .run(failsWith("bloom-guard.circuit-breaker: minimum calls (200) must be between 1 and the window (100)"));
    }

    @Test
    void failsOnFilterAboveSizeLimit() {
        runner.withPropertyValues("bloom-guard.filters.user.expected-insertions=100000000", "bloom-guard.max-filter-size=64MB")
                .run(failsWith("bloom-guard.filters.user needs", "more than bloom-guard.max-filter-size"));
    }

    @Test
    void acceptsAndShardsAFilterLargerThanOneRedisString() {
        runner.withPropertyValues("bloom-guard.filters.user.expected-insertions=10000000000", "bloom-guard.max-filter-size=64GB")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(BloomFilterRegistry.class).filter("user")
                            .geometry().shards()).isEqualTo(179);
                });
    }

    @Test
    void failsOnShardsTooFewForTheFilter() {
        runner.withPropertyValues("bloom-guard.filters.user.expected-insertions=10000000000",
                "bloom-guard.filters.user.shards=2", "bloom-guard.max-filter-size=64GB")
                .run(failsWith("bloom-guard.filters.user", "use more shards"));
    }

    @Test
    void failsOnALocalMirrorTooSmallForOnePage() {
        runner.withPropertyValues("bloom-guard.filters.user.local-mirror.enabled=true",
                "bloom-guard.filters.user.local-mirror.max-memory=1KB")
                .run(failsWith("bloom-guard.filters.user.local-mirror.max-memory (1024 bytes) must hold at least one page"));
    }

    @Test
    void failsOnANegativeCacheWithoutTtlOrRoom() {
        runner.withPropertyValues("bloom-guard.filters.user.negative-cache.enabled=true",
                "bloom-guard.filters.user.negative-cache.ttl=0s")
                .run(failsWith("bloom-guard.filters.user.negative-cache.ttl (PT0S) must be at least 1 ms"));
        runner.withPropertyValues("bloom-guard.filters.user.negative-cache.enabled=true",
                "bloom-guard.filters.user.negative-cache.max-entries=0")
                .run(failsWith("bloom-guard.filters.user.negative-cache.max-entries (0) must be at least 1"));
    }

    @Test
    void failsOnANegativeCacheExceptionThatIsMisspeltOrNoException() {
        runner.withPropertyValues("bloom-guard.filters.user.negative-cache.enabled=true",
                "bloom-guard.filters.user.negative-cache.exceptions=org.springframework.dao.EmptyResultDataAccessExeption")
                .run(failsWith("bloom-guard.filters.user.negative-cache.exceptions names",
                        "EmptyResultDataAccessExeption, which is not on the class path"));
        runner.withPropertyValues("bloom-guard.filters.user.negative-cache.enabled=true",
                "bloom-guard.filters.user.negative-cache.exceptions=java.lang.String")
                .run(failsWith("java.lang.String, which is not an exception"));
    }

    @Test
    void failsOnMissingNamedDataSource() {
        runner.withPropertyValues("bloom-guard.filters.user.warmup.sql=SELECT id FROM users",
                "bloom-guard.filters.user.warmup.datasource=reportingDataSource")
                .run(failsWith("bloom-guard.filters.user.warmup.datasource names 'reportingDataSource'"));
    }

    @Test
    void failsOnWarmupSqlWithoutDataSource() {
        runner.withPropertyValues("bloom-guard.filters.user.warmup.sql=SELECT id FROM users")
                .run(failsWith("bloom-guard.filters.user.warmup.sql is set but there is no single primary DataSource"));
    }

    @Test
    void failsOnWarmupSqlReturningSeveralColumnsWithoutKeyColumn() {
        withWarmupTable().withPropertyValues("bloom-guard.filters.user.warmup.sql=SELECT id, email FROM startup_keys")
                .run(failsWith("bloom-guard.filters.user.warmup.sql returns 2 columns [id, email]",
                        "name the key's column in bloom-guard.filters.user.warmup.key-column"));
    }

    @Test
    void startsWhenKeyColumnNamesTheKeyOfSeveralColumns() {
        withWarmupTable().withPropertyValues("bloom-guard.filters.user.warmup.sql=SELECT id, email FROM startup_keys",
                "bloom-guard.filters.user.warmup.key-column=email")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(BloomFilterRegistry.class).filter("user").keyType())
                            .contains(KeyType.TEXT);
                });
    }

    @Test
    void failsOnKeyColumnNamingNoColumnOfTheQuery() {
        withWarmupTable().withPropertyValues("bloom-guard.filters.user.warmup.sql=SELECT id, email FROM startup_keys",
                "bloom-guard.filters.user.warmup.key-column=user_id")
                .run(failsWith("bloom-guard.filters.user.warmup.key-column (user_id) names no column",
                        "[id, email]"));
    }

    @Test
    void failsOnKeyColumnWithoutWarmupSql() {
        runner.withPropertyValues("bloom-guard.filters.user.warmup.key-column=id")
                .run(failsWith("bloom-guard.filters.user.warmup.key-column (id) is set but there is no"
                        + " bloom-guard.filters.user.warmup.sql"));
    }

    @Test
    void failsOnKeyTypeContradictingTheKeyColumnNamingBoth() {
        withWarmupTable().withPropertyValues("bloom-guard.filters.user.warmup.sql=SELECT account FROM startup_keys",
                "bloom-guard.filters.user.key-type=text")
                .run(failsWith("bloom-guard.filters.user.key-type (text) contradicts the key column 'account'",
                        "of type uuid", "declare uuid"));
        withWarmupTable().withPropertyValues("bloom-guard.filters.user.warmup.sql=SELECT id FROM startup_keys",
                "bloom-guard.filters.user.key-type=uuid")
                .run(failsWith("bloom-guard.filters.user.key-type (uuid) contradicts", "of type int8"));
    }

    @Test
    void acceptsADeclaredKeyTypeThatMergesMoreThanATextColumn() {
        withWarmupTable().withPropertyValues("bloom-guard.filters.user.warmup.sql=SELECT lower(email) FROM startup_keys",
                "bloom-guard.filters.user.key-type=text-case-insensitive")
                .run(context -> assertThat(context.getBean(BloomFilterRegistry.class)
                        .filter("user").keyType()).contains(KeyType.TEXT_CASE_INSENSITIVE));
    }

    @Test
    void failsOnAKeyColumnOfATypeItCannotCompareUnlessAKeyTypeIsDeclared() {
        withWarmupTable().withPropertyValues("bloom-guard.filters.user.warmup.sql=SELECT created FROM startup_keys")
                .run(failsWith("bloom-guard.filters.user.warmup.sql: its key column 'created' is of type date",
                        "declare bloom-guard.filters.user.key-type"));
        withWarmupTable().withPropertyValues("bloom-guard.filters.user.warmup.sql=SELECT created FROM startup_keys",
                "bloom-guard.filters.user.key-type=text").run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void failsOnWarmupSqlTheDatabaseRejects() {
        withWarmupTable().withPropertyValues("bloom-guard.filters.user.warmup.sql=SELECT id FROM startup_no_such_table")
                .run(failsWith("bloom-guard.filters.user.warmup.sql: the database could not describe it",
                        "startup_no_such_table"));
    }

    /** The runner with the test PostgreSQL as primary DataSource and a table of several key columns. */
    private ApplicationContextRunner withWarmupTable() {
        RealServers.execute("DROP TABLE IF EXISTS startup_keys", "CREATE TABLE startup_keys (id BIGINT PRIMARY KEY,"
                + " email TEXT, account UUID, created DATE)");
        return runner.withConfiguration(AutoConfigurations.of(BootNames.dataSourceAutoConfiguration()))
                .withPropertyValues("spring.datasource.url=" + RealServers.postgres().jdbcUrl(),
                        "spring.datasource.username=" + RealServers.postgres().username(),
                        "spring.datasource.password=" + RealServers.postgres().password());
    }

    @Test
    void failsWhenAnnotationsHaveNoRedis() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, BloomGuardAutoConfiguration.class))
                .withPropertyValues("bloom-guard.filters.user.expected-insertions=1000")
                .withUserConfiguration(ValidUse.class)
                .run(failsWith("bloom-guard has filters (user) but no Redis", "RedisConnectionFactory", "bloom-guard.redis"));
    }

    /**
     * A duration past what a long of nanoseconds holds (about 292 years; "never" written as
     * 110000d) overflowed deep in the core with an ArithmeticException naming no property, at
     * startup or, for the grace period, on every add to another generation.
     */
    @Test
    void failsOnADurationTooLongForNanosecondsAndNamesIt() {
        runner.withPropertyValues("bloom-guard.redis-timeout=110000d")
                .run(failsWith("bloom-guard.redis-timeout (PT2640000H) must be under 292 years"));
        runner.withPropertyValues("bloom-guard.circuit-breaker.open-duration=110000d")
                .run(failsWith("bloom-guard.circuit-breaker.open-duration (PT2640000H) must be under 292 years"));
        runner.withPropertyValues("bloom-guard.circuit-breaker.slow-call=110000d")
                .run(failsWith("bloom-guard.circuit-breaker.slow-call (PT2640000H) must be under 292 years"));
        runner.withPropertyValues("bloom-guard.rollout.grace-period=110000d")
                .run(failsWith("bloom-guard.rollout.grace-period (PT2640000H) must be under 292 years"));
        runner.withPropertyValues("bloom-guard.filters.user.expected-insertions=1000",
                "bloom-guard.filters.user.rebuild.interval=110000d")
                .run(failsWith("bloom-guard.filters.user.rebuild.interval (PT2640000H) must be under 292 years"));
        runner.withPropertyValues("bloom-guard.filters.user.expected-insertions=1000",
                "bloom-guard.filters.user.negative-cache.enabled=true",
                "bloom-guard.filters.user.negative-cache.ttl=110000d")
                .run(failsWith("bloom-guard.filters.user.negative-cache.ttl (PT2640000H) must be under 292 years"));
        runner.withPropertyValues("bloom-guard.filters.user.expected-insertions=1000",
                "bloom-guard.filters.user.warmup.sql=SELECT id FROM users",
                "bloom-guard.filters.user.warmup.catch-up-sql=SELECT id FROM users WHERE created_at > :since",
                "bloom-guard.filters.user.warmup.catch-up-overlap=110000d")
                .run(failsWith("bloom-guard.filters.user.warmup.catch-up-overlap (PT2640000H) must be under 292 years"));
    }

    /**
     * The load lock and the load's hold on the journals are renewed every third of
     * {@code lock-ttl}, in whole milliseconds: the core wants at least 3 ms. Below, it failed
     * deep in the filter's builder with an IllegalArgumentException naming no property.
     */
    @Test
    void failsOnALockTtlBelowThreeMillisecondsAndNamesIt() {
        runner.withPropertyValues("bloom-guard.lock-ttl=2ms")
                .run(failsWith("bloom-guard.lock-ttl (PT0.002S) must be at least 3 ms"));
        runner.withPropertyValues("bloom-guard.lock-ttl=1ms")
                .run(failsWith("bloom-guard.lock-ttl (PT0.001S) must be at least 3 ms"));
        runner.withPropertyValues("bloom-guard.lock-ttl=2999us")
                .run(failsWith("bloom-guard.lock-ttl (PT0.002999S) must be at least 3 ms"));
        runner.withPropertyValues("bloom-guard.lock-ttl=3ms").run(context -> assertThat(context).hasNotFailed());
    }

    /** The heartbeat runs on a scheduler of whole milliseconds: under 1 ms the core's builder refused it, naming no property. */
    @Test
    void failsOnAHeartbeatIntervalUnderAMillisecondAndNamesIt() {
        runner.withPropertyValues("bloom-guard.rollout.heartbeat-interval=500us")
                .run(failsWith("bloom-guard.rollout.heartbeat-interval (PT0.0005S) must be at least 1 ms"));
    }

    /**
     * The rewind check runs every {@code rewind-check-interval} in whole milliseconds: under 1 ms
     * the scheduler threw an IllegalArgumentException without a message at the warmer's start.
     */
    @Test
    void failsOnARewindCheckIntervalUnderAMillisecondAndNamesIt() {
        runner.withPropertyValues("bloom-guard.rewind-check-interval=500us")
                .run(failsWith("bloom-guard.rewind-check-interval (PT0.0005S) must be at least 1 ms"));
        runner.withPropertyValues("bloom-guard.rewind-check-interval=999999ns")
                .run(failsWith("bloom-guard.rewind-check-interval (PT0.000999999S) must be at least 1 ms"));
    }

    /** The catch-up runs every {@code warmup.catch-up-interval} in whole milliseconds, as the rewind check does. */
    @Test
    void failsOnACatchUpIntervalUnderAMillisecondAndNamesIt() {
        withWarmupTable().withPropertyValues("bloom-guard.filters.user.warmup.sql=SELECT id FROM startup_keys",
                "bloom-guard.filters.user.warmup.catch-up-sql=SELECT id FROM startup_keys WHERE created > :since",
                "bloom-guard.filters.user.warmup.catch-up-interval=500us")
                .run(failsWith("bloom-guard.filters.user.warmup.catch-up-interval (PT0.0005S) must be at least 1 ms"));
    }

    /**
     * A node without a host (" :6379", as a YAML list item or a padded value keeps it) passed the
     * host:port parsing, and Lettuce then refused the empty host naming no property.
     */
    @Test
    void failsOnAClusterOrSentinelNodeWithoutAHostAndNamesIt() {
        runner.withInitializer(raw(Map.of("bloom-guard.redis.cluster.nodes[0]", " :6379")))
                .run(failsWith("bloom-guard.redis.cluster.nodes has ' :6379', which names no host"));
        runner.withInitializer(raw(Map.of("bloom-guard.redis.cluster.nodes[0]", ":6379")))
                .run(failsWith("bloom-guard.redis.cluster.nodes has ':6379'"));
        runner.withInitializer(raw(Map.of("bloom-guard.redis.sentinel.master", "mymaster",
                "bloom-guard.redis.sentinel.nodes[0]", "localhost:26379", "bloom-guard.redis.sentinel.nodes[1]", "  :26380")))
                .run(failsWith("bloom-guard.redis.sentinel.nodes has '  :26380', which names no host"));
    }

    /** Puts {@code properties} first among the context's property sources, each value exactly as given (untrimmed). */
    private static ApplicationContextInitializer<ConfigurableApplicationContext> raw(Map<String, Object> properties) {
        return context -> context.getEnvironment().getPropertySources()
                .addFirst(new MapPropertySource("raw", properties));
    }

    @Test
    void failsOnStatusRefreshIntervalThatIsNotPositive() {
        runner.withPropertyValues("bloom-guard.status-refresh-interval=0s")
                .run(failsWith("bloom-guard.status-refresh-interval (PT0S) must be positive"));
    }

    @Test
    void failsOnANegativeRebuildCooldown() {
        runner.withPropertyValues("bloom-guard.endpoint.rebuild-cooldown=-1s")
                .run(failsWith("bloom-guard.endpoint.rebuild-cooldown (PT-1S) must not be negative"));
    }

    /**
     * The fleet's rebuild turn is a Redis key that expires in whole milliseconds: under 1 ms, every
     * POST would have been refused by Redis ({@code PX 0}) and answered 503, for ever.
     */
    @Test
    void failsOnARebuildCooldownUnderAMillisecondButZero() {
        runner.withPropertyValues("bloom-guard.endpoint.rebuild-cooldown=500us")
                .run(failsWith("bloom-guard.endpoint.rebuild-cooldown (PT0.0005S) must be 0 (no cooldown) or at least 1 ms"));
        runner.withPropertyValues("bloom-guard.endpoint.rebuild-cooldown=0").run(context -> assertThat(context).hasNotFailed());
        runner.withPropertyValues("bloom-guard.endpoint.rebuild-cooldown=1ms").run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void failsOnMaxShrinkOutsideZeroToOne() {
        runner.withPropertyValues("bloom-guard.filters.user.rebuild.max-shrink=1.5")
                .run(failsWith("bloom-guard.filters.user.rebuild.max-shrink (1.5) must be in [0, 1]"));
    }

    @Test
    void failsOnAnAuditSampleRateOutsideZeroToOne() {
        runner.withPropertyValues("bloom-guard.filters.user.audit.sample-rate=1.5")
                .run(failsWith("bloom-guard.filters.user.audit.sample-rate (1.5) must be in [0, 1]"));
        runner.withPropertyValues("bloom-guard.filters.user.audit.sample-rate=-0.1")
                .run(failsWith("bloom-guard.filters.user.audit.sample-rate (-0.1) must be in [0, 1]"));
    }

    /** A cooldown of 0 would let every false negative the audit finds ask for another full rebuild. */
    @Test
    void failsOnAnAuditRebuildCooldownThatIsNotPositive() {
        runner.withPropertyValues("bloom-guard.filters.user.audit.rebuild-cooldown=0s")
                .run(failsWith("bloom-guard.filters.user.audit.rebuild-cooldown (PT0S) must be positive"));
        runner.withPropertyValues("bloom-guard.filters.user.audit.rebuild-cooldown=-1s")
                .run(failsWith("bloom-guard.filters.user.audit.rebuild-cooldown (PT-1S) must be positive"));
    }

    /** Puts the YAML test resource at {@code path} first among the context's property sources. */
    private static ApplicationContextInitializer<ConfigurableApplicationContext> yaml(String path) {
        return context -> {
            try {
                new YamlPropertySourceLoader().load(path, new ClassPathResource(path))
                        .forEach(context.getEnvironment().getPropertySources()::addFirst);
            }
            catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        };
    }

    @Test
    void failsOnABypassMaxRateThatIsNotAPositiveNumberThroughTheFailureAnalyzer() {
        runner.withPropertyValues("bloom-guard.filters.user.bypass.max-rate=0")
                .run(failsWith("bloom-guard.filters.user.bypass.max-rate (0.0) must be a positive number of calls per"
                        + " second; leave it unset for the rate learned from the filter's answers"));
        runner.withPropertyValues("bloom-guard.filters.user.bypass.max-rate=-5").run(context -> {
            FailureAnalysis analysis = new BloomGuardConfigurationFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).contains("bloom-guard.filters.user.bypass.max-rate (-5.0)");
        });
    }

    @Test
    void startsWithABypassBudgetAndKnowsItsNames() {
        runner.withUserConfiguration(ValidUse.class)
                .withPropertyValues("bloom-guard.filters.user.bypass.max-rate=250",
                        "bloom-guard.filters.user.bypass.when-exhausted=allow")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    BloomGuardProperties.Bypass bypass = context.getBean(BloomGuardProperties.class).getFilters()
                            .get("user").getBypass();
                    assertThat(bypass.getMaxRate()).isEqualTo(250.0);
                    assertThat(bypass.getWhenExhausted()).isEqualTo(BloomGuardProperties.WhenExhausted.ALLOW);
                });
        runner.withUserConfiguration(ValidUse.class).withPropertyValues("bloom-guard.filters.user.bypass.max-rat=250")
                .run(failsWith("bloom-guard.filters.user.bypass.max-rat is not a bloom-guard property; did you mean "
                        + "bloom-guard.filters.user.bypass.max-rate?"));
    }

    @Test
    void startsWithTheBypassBudgetOfTheOperationsGuide() {
        // docs/operations.md shows bypass/bypass.yml; a context boots with it and the filter's budget takes it.
        runner.withUserConfiguration(ValidUse.class).withInitializer(yaml("bypass/bypass.yml")).run(context -> {
                    assertThat(context).hasNotFailed();
                    BloomGuardProperties.Bypass bypass = context.getBean(BloomGuardProperties.class).getFilters()
                            .get("user").getBypass();
                    assertThat(bypass.getMaxRate()).isEqualTo(200.0);
                    assertThat(bypass.getWhenExhausted()).isEqualTo(BloomGuardProperties.WhenExhausted.SHED);
                });
    }

    @Test
    void startsWithTheAuditOfTheOperationsGuide() {
        // docs/operations.md shows audit/audit.yml; a context boots with it and the filter's audit takes it.
        runner.withUserConfiguration(ValidUse.class).withInitializer(yaml("audit/audit.yml")).run(context -> {
                    assertThat(context).hasNotFailed();
                    BloomGuardProperties.Audit audit = context.getBean(BloomGuardProperties.class).getFilters()
                            .get("user").getAudit();
                    assertThat(audit.getSampleRate()).isEqualTo(0.001);
                    assertThat(audit.getRebuildCooldown()).isEqualTo(Duration.ofMinutes(10));
                });
    }

    @Test
    void failsOnCatchUpSqlWithoutSinceOrWithoutWarmupSql() {
        runner.withPropertyValues("bloom-guard.filters.user.warmup.sql=SELECT id FROM users",
                "bloom-guard.filters.user.warmup.catch-up-sql=SELECT id FROM users WHERE created_at > now()")
                .run(failsWith("bloom-guard.filters.user.warmup.catch-up-sql has no :since parameter"));
        runner.withPropertyValues("bloom-guard.filters.user.warmup.catch-up-sql=SELECT id FROM users WHERE created_at > :since")
                .run(failsWith("bloom-guard.filters.user.warmup.catch-up-sql is set but",
                        "bloom-guard.filters.user.warmup.sql is not"));
    }

    @Test
    void aFilterFedByABeanMustDeclareItsKeyType() {
        runner.withUserConfiguration(AnnotatedSource.class)
                .run(failsWith("bloom-guard.filters.user is filled by the KeySource bean 'userIds' and declares no"
                        + " key-type", "bloom-guard.filters.user.key-type"));
    }

    @Test
    void startsWithAKeySourceBeanChosenByAnnotationOrByName() {
        ApplicationContextRunner runner = this.runner.withPropertyValues("bloom-guard.filters.user.key-type=integer");
        runner.withUserConfiguration(AnnotatedSource.class)
                .run(context -> assertThat(context.getBean(FilterWarmer.class).tasks().get("user").source())
                        .isSameAs(context.getBean("userIds")));
        runner.withUserConfiguration(PlainSources.class).withPropertyValues("bloom-guard.filters.user.source-bean=otherIds")
                .run(context -> assertThat(context.getBean(FilterWarmer.class).tasks().get("user").source())
                        .isSameAs(context.getBean("otherIds")));
        runner.withBean("componentIds", ComponentSource.class)
                .run(context -> assertThat(context.getBean(FilterWarmer.class).tasks().get("user").source())
                        .isSameAs(context.getBean("componentIds")));
    }

    @Test
    void failsOnAFilterWithBothWarmupSqlAndASourceBean() {
        withWarmupTable().withUserConfiguration(AnnotatedSource.class)
                .withPropertyValues("bloom-guard.filters.user.warmup.sql=SELECT id FROM startup_keys")
                .run(failsWith("bloom-guard.filters.user", "both bloom-guard.filters.user.warmup.sql",
                        "'userIds'", "choose one"));
    }

    @Test
    void failsOnTwoBeansClaimingOneFilter() {
        runner.withUserConfiguration(AnnotatedSource.class, SecondAnnotatedSource.class)
                .run(failsWith("filter 'user'", "'userIds'", "'moreUserIds'"));
        runner.withUserConfiguration(AnnotatedSource.class, PlainSources.class)
                .withPropertyValues("bloom-guard.filters.user.source-bean=otherIds")
                .run(failsWith("bloom-guard.filters.user.source-bean", "'otherIds'", "'userIds'"));
    }

    @Test
    void failsOnASourceBeanThatIsMissingOrNotAKeySource() {
        runner.withPropertyValues("bloom-guard.filters.user.source-bean=nowhere")
                .run(failsWith("bloom-guard.filters.user.source-bean names 'nowhere'", "no bean of that name"));
        runner.withUserConfiguration(PlainSources.class).withPropertyValues("bloom-guard.filters.user.source-bean=notASource")
                .run(failsWith("bloom-guard.filters.user.source-bean names 'notASource'", "not a KeySource"));
    }

    @Test
    void failsOnABloomKeySourceNamingAnUndeclaredFilter() {
        runner.withUserConfiguration(UndeclaredFilterSource.class)
                .run(failsWith("@BloomKeySource(\"users\") on bean 'userIds'", "filter 'users' is not configured",
                        "configured: user, quiet"));
    }

    @Test
    void failsOnABloomKeySourceOnABeanThatIsNotAKeySource() {
        runner.withUserConfiguration(AnnotatedNonSource.class)
                .run(failsWith("@BloomKeySource(\"user\") on bean 'userNames'", "not a KeySource"));
    }

    /** A source of a few keys; enough for startup, which checks the choice without loading. */
    static KeySource fewKeys() {
        return RepositoryKeySource.of("a few ids", () -> Stream.of(1L, 2L, 3L));
    }

    /** A source declared as a component, the annotation on its class. */
    @BloomKeySource("user")
    static class ComponentSource implements KeySource {

        @Override
        public Stream<?> keys(RedisBloomFilter filter) {
            return Stream.of(1L, 2L, 3L);
        }

        @Override
        public String fingerprint(RedisBloomFilter filter) {
            return "component:1";
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class AnnotatedSource {
        @Bean
        @BloomKeySource("user")
        KeySource userIds() {
            return fewKeys();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class SecondAnnotatedSource {
        @Bean
        @BloomKeySource("user")
        KeySource moreUserIds() {
            return fewKeys();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PlainSources {
        @Bean
        KeySource otherIds() {
            return fewKeys();
        }

        @Bean
        String notASource() {
            return "not a source";
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class UndeclaredFilterSource {
        @Bean
        @BloomKeySource("users")
        KeySource userIds() {
            return fewKeys();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class AnnotatedNonSource {
        @Bean
        @BloomKeySource("user")
        String userNames() {
            return "not a source";
        }
    }

    public interface Finder {
        Optional<String> find(long id);
    }

    static class UnknownFilterService implements Finder {
        @Override
        @BloomGuard(filter = "users", key = "#id")
        public Optional<String> find(long id) {
            return Optional.empty();
        }
    }

    static class UnknownPutFilterService {
        @BloomPut(filter = "nope", key = "#result")
        public String save(String name) {
            return name;
        }
    }

    /**
     * Spring's proxy matching looks at the class's own methods before inherited ones and stops at
     * the first match: the good {@code find} here. The bad inherited method must still fail startup.
     */
    static class SecondMethodBadService extends BadBase implements Finder {
        @Override
        @BloomGuard(filter = "user", key = "#id")
        public Optional<String> find(long id) {
            return Optional.empty();
        }
    }

    static class BadBase {
        @BloomGuard(filter = "users", key = "#id")
        public Optional<String> findToo(long id) {
            return Optional.empty();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class SecondMethodBad {
        @Bean
        SecondMethodBadService secondMethodBadService() {
            return new SecondMethodBadService();
        }
    }

    static class BadSpelService implements Finder {
        @Override
        @BloomGuard(filter = "user", key = "#id +")
        public Optional<String> find(long id) {
            return Optional.empty();
        }
    }

    static class UnknownParameterService implements Finder {
        @Override
        @BloomGuard(filter = "user", key = "#userId")
        public Optional<String> find(long id) {
            return Optional.empty();
        }
    }

    static class ResultInGuardService implements Finder {
        @Override
        @BloomGuard(filter = "user", key = "#result")
        public Optional<String> find(long id) {
            return Optional.empty();
        }
    }

    static class IndexOutOfRangeService implements Finder {
        @Override
        @BloomGuard(filter = "user", key = "#p3")
        public Optional<String> find(long id) {
            return Optional.empty();
        }
    }

    static class PrimitiveReturnEmptyService {
        @BloomGuard(filter = "quiet", key = "#id")
        public long count(long id) {
            return id;
        }
    }

    static class ValidService implements Finder {
        @Override
        @BloomGuard(filter = "user", key = "#id")
        public Optional<String> find(long id) {
            return Optional.empty();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ValidUse {
        @Bean
        ValidService validService() {
            return new ValidService();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class UnknownFilter {
        @Bean
        UnknownFilterService unknownFilterService() {
            return new UnknownFilterService();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class UnknownPutFilter {
        @Bean
        UnknownPutFilterService unknownPutFilterService() {
            return new UnknownPutFilterService();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class BadSpel {
        @Bean
        BadSpelService badSpelService() {
            return new BadSpelService();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class UnknownParameter {
        @Bean
        UnknownParameterService unknownParameterService() {
            return new UnknownParameterService();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ResultInGuard {
        @Bean
        ResultInGuardService resultInGuardService() {
            return new ResultInGuardService();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class IndexOutOfRange {
        @Bean
        IndexOutOfRangeService indexOutOfRangeService() {
            return new IndexOutOfRangeService();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PrimitiveReturnEmpty {
        @Bean
        PrimitiveReturnEmptyService primitiveReturnEmptyService() {
            return new PrimitiveReturnEmptyService();
        }
    }

    static class PlainFutureService {
        @BloomGuard(filter = "user", key = "#id")
        public Future<String> find(long id) {
            return CompletableFuture.completedFuture("found");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PlainFuture {
        @Bean
        PlainFutureService plainFutureService() {
            return new PlainFutureService();
        }
    }

    /** A key type with only Object's toString: every instance would hash differently. */
    static final class Textless {
    }

    static class MapKeyService {
        @BloomGuard(filter = "user", key = "#ids")
        public String byMap(Map<Long, String> ids) {
            return "map";
        }
    }

    static class StreamKeyService {
        @BloomGuard(filter = "user", key = "#p0")
        public String byStream(Stream<Long> ids) {
            return "stream";
        }
    }

    static class AsyncKeyService {
        @BloomGuard(filter = "user", key = "#id")
        public CompletableFuture<String> byId(long id) {
            return CompletableFuture.completedFuture("async");
        }
    }

    static class StreamResultService {
        @BloomGuard(filter = "user", key = "#id")
        public Stream<String> byId(long id) {
            return Stream.of("row");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class StreamResult {
        @Bean
        StreamResultService streamResultService() {
            return new StreamResultService();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class AsyncKey {
        @Bean
        AsyncKeyService asyncKeyService() {
            return new AsyncKeyService();
        }
    }

    static class PathKeyService {
        @BloomGuard(filter = "user", key = "#path")
        public String byPath(Path path) {
            return "path";
        }
    }

    static class TextlessKeyService {
        @BloomGuard(filter = "user", key = "#key")
        public String byTextless(Textless key) {
            return "textless";
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class MapKey {
        @Bean
        MapKeyService mapKeyService() {
            return new MapKeyService();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class StreamKey {
        @Bean
        StreamKeyService streamKeyService() {
            return new StreamKeyService();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PathKey {
        @Bean
        PathKeyService pathKeyService() {
            return new PathKeyService();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TextlessKey {
        @Bean
        TextlessKeyService textlessKeyService() {
            return new TextlessKeyService();
        }
    }
}
