package dev.bloomguard.bench;

import static dev.bloomguard.bench.BenchSupport.ABSENT_BASE;
import static dev.bloomguard.bench.BenchSupport.FPP;
import static dev.bloomguard.bench.BenchSupport.PRESENT;
import static dev.bloomguard.bench.BenchSupport.batchMillis;
import static dev.bloomguard.bench.BenchSupport.log;
import static dev.bloomguard.bench.BenchSupport.time;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;

import javax.sql.DataSource;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.redis.LettuceBitmapStore;
import dev.bloomguard.embedded.RedisCluster;
import dev.bloomguard.spring.redis.SpringDataLettuceConnections;
import dev.bloomguard.spring.warmup.SqlKeySource;

/** The "Redis Cluster" section. */
record ClusterScenario(SuiteSettings settings, Report report) {

    /**
     * A sharded filter on a real three-master Redis Cluster against the standalone filter: one
     * key, a batch of 1,000, and a warmup of the largest size from PostgreSQL.
     */
    void run(DataSource dataSource, CheckApproach standalone, LettuceBitmapStore standaloneStore)
            throws Exception {
        log("Redis Cluster");
        try (RedisCluster cluster = RedisCluster.start(3)) {
            LettuceConnectionFactory factory = new LettuceConnectionFactory(
                    new RedisClusterConfiguration(cluster.nodeAddresses()));
            factory.afterPropertiesSet();
            factory.start();
            try {
                LettuceBitmapStore store = LettuceBitmapStore.create(new SpringDataLettuceConnections(factory), Duration.ofSeconds(60));
                RedisBloomFilter sharded = RedisBloomFilter.builder("bench", FilterGeometry.withShards(PRESENT, FPP, 6), store)
                        .checkTimeout(Duration.ofSeconds(5)).build();
                sharded.load(LongStream.rangeClosed(1, PRESENT).boxed());
                CheckApproach clustered = new CheckApproach() {
                    private final CheckApproach delegate = Approaches.bloomGuard(sharded);

                    @Override
                    public String name() {
                        return "bloom-guard check, 6 shards on a 3-node cluster";
                    }

                    @Override
                    public boolean contains(long id) throws Exception {
                        return delegate.contains(id);
                    }

                    @Override
                    public int containsAll(List<Long> ids) throws Exception {
                        return delegate.containsAll(ids);
                    }
                };
                Latency latency = new Latency(PRESENT, ABSENT_BASE);
                Map<String, List<Double>> p50 = new LinkedHashMap<>();
                for (int round = 0; round < settings.rounds(); round++) {
                    latency.interleaved(List.of(standalone, clustered), settings.warmupOps(), settings.singleOps())
                            .forEach((name, result) -> p50.computeIfAbsent(name, key -> new ArrayList<>())
                                    .add(result.p50Nanos() / 1000.0));
                }
                Map<String, List<Double>> batch = new LinkedHashMap<>();
                long sequence = 0;
                for (int round = 0; round < settings.rounds(); round++) {
                    for (CheckApproach approach : List.of(standalone, clustered)) {
                        batch.computeIfAbsent(approach.name(), name -> new ArrayList<>())
                                .add(batchMillis(approach, latency, sequence, settings.batchesPerRound()));
                        sequence += 1000L * settings.batchesPerRound();
                    }
                }
                long keys = settings.warmupSizes()[settings.warmupSizes().length - 1];
                String sql = "SELECT id FROM bench_users WHERE id <= " + keys;
                RedisBloomFilter big = RedisBloomFilter.builder("cluster-warm",
                        FilterGeometry.withShards(keys, FPP, 12), store).build();
                double clusterWarmup = time(() -> new SqlKeySource(dataSource, sql, 10_000).loadInto(big, false));
                RedisBloomFilter plainBig = RedisBloomFilter.builder("standalone-warm-again",
                        FilterGeometry.of(keys, FPP), standaloneStore).build();
                double standaloneWarmup = time(() -> new SqlKeySource(dataSource, sql, 10_000).loadInto(plainBig, false));
                report.append("## Redis Cluster\n\n")
                        .append("The same 1,000,000 keys in a filter of 6 shards on a real three-master cluster")
                        .append(" (loopback, started by the suite) against the one-key standalone filter; one thread.\n\n")
                        .append("| approach | 1 key p50 µs | batch of 1,000 p50 ms |\n|---|---|---|\n");
                for (String name : p50.keySet()) {
                    report.append("| ").append(name).append(" | ").append(Stats.spread(p50.get(name), "%.1f")).append(" | ")
                            .append(Stats.spread(batch.get(name), "%.2f")).append(" |\n");
                }
                report.append(String.format("%nWarmup of %,d keys from PostgreSQL: %.2f s into 12 shards on the cluster,"
                        + " %.2f s into one standalone key.%n%n", keys, clusterWarmup, standaloneWarmup));
            }
            finally {
                factory.destroy();
            }
        }
    }
}
