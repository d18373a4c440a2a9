package dev.bloomguard.bench;

import static dev.bloomguard.bench.BenchSupport.FPP;
import static dev.bloomguard.bench.BenchSupport.PRESENT;
import static dev.bloomguard.bench.BenchSupport.awaitAll;
import static dev.bloomguard.bench.BenchSupport.log;

import java.util.ArrayList;
import java.util.List;

import org.redisson.api.RBloomFilter;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.hash.BitPositions;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;

/** The "Redis memory" section: {@code MEMORY USAGE} of each approach's keys against the bitmap. */
record MemoryScenario(Report report) {

    void run(StatefulRedisConnection<String, String> plain, RedisBloomFilter filter,
            RBloomFilter<String> redissonFilter) {
        log("Redis memory per filter");
        long bitmapBytes = filter.geometry().byteSize();
        var sync = plain.sync();
        long ours = sync.memoryUsage(filter.keys().live());
        long redissonBits = sync.memoryUsage(redissonFilter.getName());
        Long redissonConfig = sync.memoryUsage("{" + redissonFilter.getName() + "}:config");
        String setbitKey = "setbit-memory";
        sync.del(setbitKey);
        RedisAsyncCommands<String, String> async = plain.async();
        List<RedisFuture<Long>> pending = new ArrayList<>();
        long[] offsets = new long[filter.geometry().hashes()];
        for (long id = 1; id <= PRESENT; id++) {
            BitPositions.fill(id, filter.geometry().bits(), filter.geometry().hashes(), offsets, 0);
            for (long offset : offsets) {
                pending.add(async.setbit(setbitKey, offset, 1));
            }
            if (pending.size() >= 20_000) {
                awaitAll(pending);
            }
        }
        awaitAll(pending);
        long setbit = sync.memoryUsage(setbitKey);
        report.target("Redis memory within 1.1× of the bitmap", (double) ours / bitmapBytes, String.format("%.2f×", (double) ours / bitmapBytes),
                (double) ours / bitmapBytes <= 1.1);
        report.append("## Redis memory for ").append(String.format("%,d", PRESENT)).append(" keys at fpp ").append(FPP)
                .append("\n\n`MEMORY USAGE` of each approach's keys against the size of bloom-guard's bitmap (")
                .append(String.format("%,d", bitmapBytes)).append(" bytes).\n\n")
                .append("| approach | bytes in Redis | vs bitmap |\n|---|---|---|\n")
                .append(String.format("| bloom-guard (written whole) | %,d | %.2f× |%n", ours, (double) ours / bitmapBytes))
                .append(String.format("| Redisson (bits + config hash) | %,d | %.2f× |%n",
                        redissonBits + (redissonConfig == null ? 0 : redissonConfig),
                        (double) (redissonBits + (redissonConfig == null ? 0 : redissonConfig)) / bitmapBytes))
                .append(String.format("| same bits grown by SETBIT | %,d | %.2f× |%n%n", setbit, (double) setbit / bitmapBytes));
    }
}
