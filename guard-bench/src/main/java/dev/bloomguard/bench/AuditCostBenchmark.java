package dev.bloomguard.bench;

import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
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

import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BloomGuard;
import dev.bloomguard.spring.BloomGuardRejectedException;
import dev.bloomguard.test.memory.InMemoryBitmapStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * What the false-negative audit ({@code audit.sample-rate}) costs the caller of a blocked call:
 * a guarded lookup of absent keys, rejected, with every call sampled ({@code 1}) against none
 * ({@code 0}) in the same run, the filter answering from memory so that no network is in the
 * number. The difference is what a sampled call adds on the caller's thread (the draw, the
 * audit's key, the hand-off to the audit's queue); the lookup itself runs once more on the
 * audit's own thread, after the caller has its answer. At the suggested 0.001, a thousandth of it
 * per blocked call.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AuditCostBenchmark {

    private static final int ABSENT_IDS = 4_096;

    /** The lookup a repository would make; it finds nothing for an absent key. */
    public interface Users {

        @BloomGuard(filter = "bench", key = "#id")
        Optional<Long> find(long id);
    }

    public static class InMemoryUsers implements Users {

        @Override
        public Optional<Long> find(long id) {
            return id <= 1_000_000 ? Optional.of(id) : Optional.empty();
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
        InMemoryUsers users() {
            return new InMemoryUsers();
        }

        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }

    /** The share of blocked calls audited: none, or every one. */
    @Param({ "0", "1" })
    public String sampleRate;

    private ConfigurableApplicationContext context;
    private Users users;
    private final long[] absent = new long[ABSENT_IDS];
    private int next;

    @Setup(Level.Trial)
    public void start() {
        context = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE).logStartupInfo(false)
                .properties("bloom-guard.filters.bench.expected-insertions=1000000", "spring.main.banner-mode=off",
                        "bloom-guard.filters.bench.audit.sample-rate=" + sampleRate, "logging.level.root=WARN")
                .run();
        users = context.getBean(Users.class);
        RedisBloomFilter filter = context.getBean(BloomFilterRegistry.class).filter("bench");
        filter.load(LongStream.rangeClosed(1, 1_000_000).boxed());
        long[] found = LongStream.iterate(2_000_001, id -> id + 1)
                .filter(id -> filter.check(id) == Membership.ABSENT).limit(ABSENT_IDS).toArray();
        System.arraycopy(found, 0, absent, 0, ABSENT_IDS);
        if (users.find(42).isEmpty()) {
            throw new IllegalStateException("the guarded lookup did not pass a present key");
        }
    }

    @TearDown(Level.Trial)
    public void stop() {
        context.close();
    }

    @Benchmark
    public Object blockedCall() {
        long id = absent[next++ & (ABSENT_IDS - 1)];
        try {
            return users.find(id);
        }
        catch (BloomGuardRejectedException ex) {
            return ex;
        }
    }
}
