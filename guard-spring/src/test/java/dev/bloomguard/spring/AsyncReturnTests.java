package dev.bloomguard.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.testsupport.AbsentKeys;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import reactor.core.publisher.Flux;

/**
 * Guarded methods that return a {@code CompletableFuture}, a {@code CompletionStage} or another
 * asynchronous type Spring's {@code ReactiveAdapterRegistry} knows, on real Redis: the check
 * does not hold the caller's thread, {@code #result} is the completed value, and a rejection is
 * the future's failure.
 */
@SpringBootTest(classes = AsyncReturnTests.App.class, properties = { "bloom-guard.key-prefix=async",
        "bloom-guard.redis-timeout=5s",
        "bloom-guard.filters.product.expected-insertions=1000",
        "bloom-guard.filters.quiet.expected-insertions=1000",
        "bloom-guard.filters.quiet.on-absent=return-empty" })
class AsyncReturnTests {

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        RealServers.registerRedis(registry);
    }

    @Autowired
    ProductService products;

    @Autowired
    ProductRepository repository;

    @Autowired
    AsyncCalls calls;

    @Autowired
    BloomFilterRegistry registry;

    @BeforeEach
    void loadFilters() {
        for (String name : List.of("product", "quiet")) {
            registry.filter(name).load(LongStream.rangeClosed(1, 100).boxed());
        }
        for (long id = 1; id <= 100; id++) {
            repository.save(new Product(id, "product " + id));
        }
    }

    @Test
    void presentKeyCompletesAndAbsentKeyFailsTheFutureWithoutRunningTheMethod() {
        int before = repository.reads();
        assertThat(products.find(42).join()).isEqualTo(new Product(42, "product 42"));

        for (long absent : absentKeys("product", 20)) {
            CompletableFuture<Product> rejected = products.find(absent);
            assertThatThrownBy(rejected::join).isInstanceOf(CompletionException.class)
                    .hasCauseInstanceOf(BloomGuardRejectedException.class);
        }
        assertThat(repository.reads() - before).as("only the present key reached the repository").isEqualTo(1);
    }

    @Test
    void theCallReturnsWhileRedisIsPausedAndTheMethodRunsOnlyOnceAdmitted() throws Exception {
        long absent = absentKeys("product", 1).get(0);
        try (RedisClient client = RedisClient.create("redis://" + RealServers.redis().host() + ":" + RealServers.redis().port());
                StatefulRedisConnection<String, String> admin = client.connect()) {
            int before = repository.reads();
            CompletableFuture<String> sleep = admin.async().dispatch(CommandType.DEBUG,
                    new StatusOutput<>(StringCodec.UTF8), new CommandArgs<>(StringCodec.UTF8).add("SLEEP").add("1"))
                    .toCompletableFuture();
            Thread.sleep(100);

            long started = System.nanoTime();
            CompletableFuture<Product> present = products.find(42);
            CompletableFuture<Product> rejected = products.find(absent);
            long callNanos = System.nanoTime() - started;

            assertThat(Duration.ofNanos(callNanos)).as("the calls returned without waiting for Redis")
                    .isLessThan(Duration.ofMillis(300));
            assertThat(present).as("Redis has not answered yet").isNotDone();
            assertThat(repository.reads()).as("nothing ran before the key was admitted").isEqualTo(before);
            sleep.get(10, TimeUnit.SECONDS);
            assertThat(present.get(10, TimeUnit.SECONDS)).isEqualTo(new Product(42, "product 42"));
            assertThatThrownBy(() -> rejected.get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(BloomGuardRejectedException.class);
            assertThat(repository.reads() - before).isEqualTo(1);
        }
    }

    @Test
    void returnEmptyCompletesTheFutureWithNullOrAnEmptyOptionalAsItsTypeSays() {
        long absent = absentKeys("quiet", 1).get(0);
        int before = calls.count();

        assertThat(calls.optional(absent).toCompletableFuture().join()).isEmpty();
        assertThat(calls.nullable(absent).join()).isNull();
        assertThat(calls.list(absent).join()).isEmpty();
        assertThat(calls.count()).isEqualTo(before);

        assertThat(calls.optional(3).toCompletableFuture().join()).contains(3L);
        assertThat(calls.nullable(3).join()).isEqualTo(3L);
        assertThat(calls.count()).isEqualTo(before + 2);
    }

    @Test
    void bloomPutAddsTheCompletedValueBeforeTheReturnedFutureCompletes() {
        RedisBloomFilter filter = registry.filter("product");
        CompletableFuture<Product> saved = products.create("new");
        CompletableFuture<String> completingThread = saved.thenApply(product -> Thread.currentThread().getName());
        // A blocking check in a dependent stage: on Lettuce's I/O thread it would wait out redis-timeout.
        CompletableFuture<Membership> seenOnCompletion = saved.thenApply(product -> filter.check(product.id()));

        Product product = saved.join();
        assertThat(product.id()).isGreaterThan(100);
        assertThat(seenOnCompletion.join()).isEqualTo(Membership.PRESENT);
        assertThat(completingThread.join()).as("dependent stages run off the Redis client's threads")
                .doesNotStartWith("lettuce-");
        assertThat(products.find(product.id()).join()).isEqualTo(product);
        long absent = absentKeys("product", 1).get(0);
        assertThatThrownBy(() -> products.find(absent).join()).hasCauseInstanceOf(BloomGuardRejectedException.class);
    }

    @Test
    void bloomPutWithNullOrEmptyResultAddsNothingAndReturnsNormally() {
        assertThat(calls.createNothing().join()).isNull();
        assertThat(calls.createMaybe(false)).isEmpty();
        assertThat(calls.createOrNull(false)).isNull();

        long id = calls.createMaybe(true).orElseThrow().id();
        assertThat(registry.filter("product").check(id)).as("#result is the Optional's value").isEqualTo(Membership.PRESENT);
        long other = calls.createOrNull(true).id();
        assertThat(registry.filter("product").check(other)).isEqualTo(Membership.PRESENT);
        long absent = absentKeys("product", 1).get(0);
        assertThatThrownBy(() -> products.find(absent).join()).hasCauseInstanceOf(BloomGuardRejectedException.class);
    }

    @Test
    void anAddThatFailsFailsTheFutureWithBloomGuardException() {
        CompletableFuture<Map<Long, String>> saved = calls.saveAsMap();

        assertThatThrownBy(saved::join).hasCauseInstanceOf(BloomGuardException.class)
                .cause().isNotInstanceOf(BloomGuardRejectedException.class)
                .hasMessageContaining("AsyncCalls.saveAsMap").hasMessageContaining("Map");
        long absent = absentKeys("product", 1).get(0);
        assertThatThrownBy(() -> products.find(absent).join()).hasCauseInstanceOf(BloomGuardRejectedException.class);
    }

    @Test
    void otherAsyncTypesTheAdapterRegistryKnowsAreGuardedOnSubscription() {
        long absent = absentKeys("product", 1).get(0);
        int before = calls.count();

        Publisher<Long> rejected = calls.publisher(absent);
        assertThat(calls.count()).as("nothing runs before subscription").isEqualTo(before);
        assertThatThrownBy(() -> Flux.from(rejected).collectList().block())
                .isInstanceOf(BloomGuardRejectedException.class);
        assertThat(Flux.from(calls.publisher(7)).collectList().block()).containsExactly(7L);
        assertThat(calls.count()).isEqualTo(before + 1);
    }

    private List<Long> absentKeys(String filter, int count) {
        RedisBloomFilter bloom = registry.filter(filter);
        return AbsentKeys.first(count, LongStream.rangeClosed(1_000, 100_000), id -> bloom.check(id) == Membership.ABSENT);
    }

    public record Product(long id, String name) {
    }

    /** An in-memory stand-in for a slow store. */
    public static class ProductRepository {

        private final Map<Long, Product> rows = new ConcurrentHashMap<>();
        private final AtomicLong nextId = new AtomicLong(1_000_000);
        private final AtomicInteger reads = new AtomicInteger();

        public Product findById(long id) {
            reads.incrementAndGet();
            return rows.get(id);
        }

        public Product save(Product product) {
            Product saved = product.id() == 0 ? new Product(nextId.getAndIncrement(), product.name()) : product;
            rows.put(saved.id(), saved);
            return saved;
        }

        int reads() {
            return reads.get();
        }
    }

    // The README's example, verbatim.
    public static class ProductService {

        private final ProductRepository products;
        private final Executor executor;

        public ProductService(ProductRepository products, Executor executor) {
            this.products = products;
            this.executor = executor;
        }

        @BloomGuard(filter = "product", key = "#id")
        public CompletableFuture<Product> find(long id) {
            return CompletableFuture.supplyAsync(() -> products.findById(id), executor);
        }

        @BloomPut(filter = "product", key = "#result.id")
        public CompletableFuture<Product> create(String name) {
            return CompletableFuture.supplyAsync(() -> products.save(new Product(0, name)), executor);
        }
    }

    public static class AsyncCalls {

        private final AtomicInteger count = new AtomicInteger();
        private final AtomicLong nextId = new AtomicLong(2_000_000);

        int count() {
            return count.get();
        }

        @BloomGuard(filter = "quiet", key = "#id")
        public CompletionStage<Optional<Long>> optional(long id) {
            count.incrementAndGet();
            return CompletableFuture.completedFuture(Optional.of(id));
        }

        @BloomGuard(filter = "quiet", key = "#id")
        public CompletableFuture<Long> nullable(long id) {
            count.incrementAndGet();
            return CompletableFuture.completedFuture(id);
        }

        @BloomGuard(filter = "quiet", key = "#id")
        public CompletableFuture<List<Long>> list(long id) {
            count.incrementAndGet();
            return CompletableFuture.completedFuture(List.of(id));
        }

        @BloomPut(filter = "product", key = "#result.id")
        public CompletableFuture<Product> createNothing() {
            return CompletableFuture.completedFuture(null);
        }

        @BloomPut(filter = "product", key = "#result.id")
        public Optional<Product> createMaybe(boolean create) {
            return create ? Optional.of(new Product(nextId.getAndIncrement(), "maybe")) : Optional.empty();
        }

        @BloomPut(filter = "product", key = "#result.id")
        public Product createOrNull(boolean create) {
            return create ? new Product(nextId.getAndIncrement(), "or null") : null;
        }

        @BloomPut(filter = "product", key = "#result")
        public CompletableFuture<Map<Long, String>> saveAsMap() {
            return CompletableFuture.completedFuture(Map.of(1L, "one"));
        }

        @BloomGuard(filter = "product", key = "#id")
        public Publisher<Long> publisher(long id) {
            count.incrementAndGet();
            return Flux.just(id);
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration(excludeName = { BootNames.DATA_SOURCE_3, BootNames.DATA_SOURCE_4 })
    static class App {

        @Bean(destroyMethod = "shutdown")
        ExecutorService productExecutor() {
            return Executors.newFixedThreadPool(2);
        }

        @Bean
        ProductRepository productRepository() {
            return new ProductRepository();
        }

        @Bean
        ProductService productService(ProductRepository products, ExecutorService productExecutor) {
            return new ProductService(products, productExecutor);
        }

        @Bean
        AsyncCalls asyncCalls() {
            return new AsyncCalls();
        }
    }
}
