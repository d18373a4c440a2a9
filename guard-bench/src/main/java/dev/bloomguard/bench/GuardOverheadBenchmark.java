package dev.bloomguard.bench;

import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BloomGuard;
import dev.bloomguard.test.memory.InMemoryBitmapStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import reactor.core.publisher.Mono;

/**
 * What {@code @BloomGuard} costs around a call, with the filter answering from memory so that
 * no network is in the number: an annotated no-op against the same no-op unannotated, plus the
 * filter check alone (hashing included) to show where the difference goes.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class GuardOverheadBenchmark {

    /** The no-op, guarded through an interface as a repository would be. */
    public interface Lookup {

        @BloomGuard(filter = "bench", key = "#id")
        long guarded(long id);

        long plain(long id);

        @BloomGuard(filter = "bench", key = "#id")
        Mono<Long> guardedLater(long id);
    }

    /** The same no-op on a bean nothing advises. */
    public static class PlainLookup {

        public long plain(long id) {
            return id;
        }

        public Mono<Long> plainLater(long id) {
            return Mono.just(id);
        }
    }

    public static class GuardedLookup implements Lookup {

        @Override
        public long guarded(long id) {
            return id;
        }

        @Override
        public long plain(long id) {
            return id;
        }

        @Override
        public Mono<Long> guardedLater(long id) {
            return Mono.just(id);
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration(exclude = DataSourceAutoConfiguration.class)
    static class App {

        @Bean
        BitmapStore inMemoryBitmapStore() {
            return InMemoryBitmapStore.create();
        }

        @Bean
        GuardedLookup guardedLookup() {
            return new GuardedLookup();
        }

        @Bean
        PlainLookup plainLookup() {
            return new PlainLookup();
        }

        /** Counting outcomes is part of what every guarded call pays. */
        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }

    private ConfigurableApplicationContext context;
    private Lookup lookup;
    private PlainLookup plainLookup;
    private RedisBloomFilter filter;
    private long sequence;

    @Setup(Level.Trial)
    public void start() {
        context = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE).logStartupInfo(false)
                .properties("bloom-guard.filters.bench.expected-insertions=1000000", "spring.main.banner-mode=off",
                        "logging.level.root=WARN")
                .run();
        lookup = context.getBean(Lookup.class);
        plainLookup = context.getBean(PlainLookup.class);
        filter = context.getBean(BloomFilterRegistry.class).filter("bench");
        filter.load(LongStream.rangeClosed(1, 1_000_000).boxed());
        if (lookup.guarded(42) != 42 || lookup.guardedLater(42).block() != 42L) {
            throw new IllegalStateException("the guarded no-op did not pass a present key");
        }
    }

    @TearDown(Level.Trial)
    public void stop() {
        context.close();
    }

    private long nextPresentId() {
        sequence = sequence == 1_000_000 ? 1 : sequence + 1;
        return sequence;
    }

    @Benchmark
    public long unannotatedNoOp() {
        return plainLookup.plain(nextPresentId());
    }

    @Benchmark
    public long annotatedNoOp() {
        return lookup.guarded(nextPresentId());
    }

    /** The reactive form: a {@code Mono} no-op subscribed and awaited, unannotated. */
    @Benchmark
    public Long unannotatedMonoNoOp() {
        return plainLookup.plainLater(nextPresentId()).block();
    }

    /** The same {@code Mono} no-op guarded: the check runs on subscription through the non-blocking path. */
    @Benchmark
    public Long annotatedMonoNoOp() {
        return lookup.guardedLater(nextPresentId()).block();
    }

    @Benchmark
    public Object filterCheckAlone() {
        return filter.check(nextPresentId());
    }
}
