package dev.bloomguard.spring.data.r2dbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.stream.LongStream;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.data.r2dbc.core.R2dbcEntityTemplate;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.ReactiveTransactionManager;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.reactive.TransactionalOperator;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.misses.MissKeys;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BloomGuardException;
import dev.bloomguard.spring.BloomGuardRejectedException;
import dev.bloomguard.spring.BloomPut;
import dev.bloomguard.spring.BootNames;
import dev.bloomguard.spring.RealServers;
import dev.bloomguard.spring.data.Rejections;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A reactive Spring Data R2DBC repository guarded on its interface: the filter is warmed over JDBC
 * (a DataSource the application declares, since Boot backs off its own when R2DBC is configured),
 * the repository itself speaks R2DBC to the same PostgreSQL.
 */
@SpringBootTest(classes = SpringDataR2dbcRepositoryTests.App.class, properties = {
        "bloom-guard.key-prefix=data-r2dbc",
        "bloom-guard.redis-timeout=5s",
        "bloom-guard.filters.item.expected-insertions=20000",
        "bloom-guard.filters.item.warmup.sql=SELECT id FROM data_r2dbc_items",
        "bloom-guard.filters.item.warmup.blocking=true",
        "bloom-guard.filters.item.negative-cache.enabled=true",
        "bloom-guard.filters.item-label.expected-insertions=20000",
        "bloom-guard.filters.item-label.warmup.sql=SELECT label FROM data_r2dbc_items",
        "bloom-guard.filters.item-label.warmup.blocking=true" })
class SpringDataR2dbcRepositoryTests {

    private static final int ROWS = 2_000;
    private static final Duration WAIT = Duration.ofSeconds(10);

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        RealServers.execute("DROP TABLE IF EXISTS data_r2dbc_items",
                "CREATE TABLE data_r2dbc_items (id BIGSERIAL PRIMARY KEY, label TEXT NOT NULL)",
                "INSERT INTO data_r2dbc_items (label) SELECT 'item-' || g FROM generate_series(1, " + ROWS + ") g");
        RealServers.registerRedis(registry);
        RealServers.registerR2dbc(registry);
    }

    @Autowired
    ItemRepository items;

    @Autowired
    ReactiveTransactionManager transactionManager;

    @Autowired
    BloomFilterRegistry filters;

    @Autowired
    StringRedisTemplate redis;

    @Test
    void reactiveFindersPassPresentKeysAndRejectAbsentOnes() {
        for (long id = 1; id <= ROWS; id++) {
            assertThat(items.findById(id).block(WAIT)).as("item %s", id).isNotNull();
        }
        for (int i = 1; i <= ROWS; i += 9) {
            assertThat(items.findByLabel("item-" + i).collectList().block(WAIT)).hasSize(1);
        }
        assertThat(Rejections.count(LongStream.rangeClosed(1_000_001, 1_001_000).boxed().toList(),
                id -> items.findById(id).block(WAIT))).isGreaterThan(950);
        assertThat(Rejections.count(LongStream.rangeClosed(1, 1_000).mapToObj(i -> "none-" + i).toList(),
                label -> items.findByLabel(label).collectList().block(WAIT).isEmpty() ? null : "found"))
                .isGreaterThan(950);
    }

    @Test
    void itemsSavedThroughTheReactiveRepositoryPassAtOnce() {
        for (int i = 0; i < 100; i++) {
            Item saved = items.save(new Item(null, "new-" + i)).block(WAIT);
            assertThat(saved.id()).isGreaterThan(ROWS);
            assertThat(items.findById(saved.id()).block(WAIT)).isEqualTo(saved);
        }
    }

    @Test
    void anItemSavedInsideALongReactiveTransactionIsForgottenAgainWhenItCommits() {
        RedisBloomFilter filter = filters.filter("item");
        TransactionalOperator transaction = TransactionalOperator.create(transactionManager);
        Item saved = transaction.transactional(items.save(new Item(null, "long-transaction"))
                .flatMap(item -> Mono.fromCallable(() -> {
                    // The transaction goes on for longer than the add's mark lives:
                    redis.delete(MissKeys.added(filter.keys(), 0, MissKeys.digest(item.id())));
                    // Elsewhere (no transaction in that subscriber's context) the row is not visible
                    // yet: the miss is remembered, and rejects.
                    assertThat(items.findById(item.id()).block(WAIT)).isNull();
                    assertThatThrownBy(() -> items.findById(item.id()).block(WAIT))
                            .isInstanceOf(BloomGuardRejectedException.class);
                    return item;
                }).subscribeOn(Schedulers.boundedElastic())))
                .block(WAIT);

        assertThat(items.findById(saved.id()).block(WAIT)).as("committed a moment ago").isEqualTo(saved);
    }

    @Test
    void whatAReactiveTransactionDidNotFindIsNotRemembered() {
        long id = 5_000_001L; // passes the filter, but has no row
        RedisBloomFilter filter = filters.filter("item");
        filter.add(id);
        redis.delete(MissKeys.added(filter.keys(), 0, MissKeys.digest(id)));
        TransactionalOperator transaction = TransactionalOperator.create(transactionManager);

        // A transaction may read a snapshot older than its check: what it did not find is not remembered.
        assertThat(transaction.transactional(items.findById(id).then(items.findById(id))).block(WAIT)).isNull();

        // The same lookup outside a transaction is remembered, and then rejected.
        assertThat(items.findById(id).block(WAIT)).isNull();
        assertThatThrownBy(() -> items.findById(id).block(WAIT)).isInstanceOf(BloomGuardRejectedException.class);
    }

    /**
     * A service whose reactive method is its own transaction: its add goes inside it, as a
     * blocking one's does, so an add Redis refuses rolls the row back rather than leaving a row
     * committed that the filter does not know (and that other instances block).
     */
    @Test
    void aTransactionalReactiveSaveWhoseAddRedisRefusesRollsItsRowBack() {
        long rowsBefore = items.count().block(WAIT);
        setMinReplicasToWrite(1);
        try {
            // Redis refuses the add, and late: an add that waited for the commit would come after it.
            pauseRedisWrites(Duration.ofMillis(800));
            assertThatThrownBy(() -> catalogue.create("refused").block(WAIT)).isInstanceOf(BloomGuardException.class)
                    .isNotInstanceOf(BloomGuardRejectedException.class);
        }
        finally {
            setMinReplicasToWrite(0);
        }
        assertThat(items.count().block(WAIT)).as("the add failed before the commit: the row is rolled back")
                .isEqualTo(rowsBefore);

        Item created = catalogue.create("accepted").block(WAIT);
        assertThat(items.findById(created.id()).block(WAIT)).isEqualTo(created);
        assertThat(Rejections.count(LongStream.rangeClosed(2_000_001, 2_001_000).boxed().toList(),
                id -> items.findById(id).block(WAIT))).isGreaterThan(950);
    }

    private static void pauseRedisWrites(Duration pause) {
        try (RedisClient client = RedisClient.create("redis://"
                + RealServers.redis().host() + ":" + RealServers.redis().port());
                StatefulRedisConnection<String, String> admin = client.connect()) {
            admin.sync().dispatch(CommandType.CLIENT,
                    new StatusOutput<>(StringCodec.UTF8),
                    new CommandArgs<>(StringCodec.UTF8).add("PAUSE")
                            .add(pause.toMillis()).add("WRITE"));
        }
    }

    private void setMinReplicasToWrite(int replicas) {
        redis.execute((RedisCallback<Void>) connection -> {
            connection.serverCommands().setConfig("min-replicas-to-write", Integer.toString(replicas));
            return null;
        });
    }

    @Autowired
    Catalogue catalogue;

    /** Creates items, each in a reactive transaction of its own, with no repository (and its put) in between. */
    public static class Catalogue {

        private final R2dbcEntityTemplate template;

        Catalogue(R2dbcEntityTemplate template) {
            this.template = template;
        }

        @Transactional("connectionFactoryTransactionManager")
        @BloomPut(filter = "item", key = "#result.id")
        public Mono<Item> create(String label) {
            return template.insert(new Item(null, label));
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration(excludeName = { BootNames.JDBC_REPOSITORIES_3, BootNames.JDBC_REPOSITORIES_4 })
    static class App {

        @Bean
        Catalogue catalogue(R2dbcEntityTemplate template) {
            return new Catalogue(template);
        }

        /** The warmup's JDBC connection: Boot configures none of its own next to an R2DBC one. */
        @Bean
        DataSource dataSource() {
            return RealServers.postgres().dataSource();
        }
    }
}
