package dev.bloomguard.bench;

import static dev.bloomguard.bench.BenchSupport.log;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.redis.LettuceBitmapStore;

/** The "A filter past one Redis string" section. */
record PastOneRedisStringScenario(Report report) {

    /**
     * One real filter larger than one Redis string can hold (2^32 bits): sharded, loaded, and
     * checked for false negatives and its false-positive rate. Keys are generated, not read from
     * PostgreSQL, to keep the run short.
     */
    void run(LettuceBitmapStore store) {
        long keys = 300_000_000L;
        double fpp = 0.001;
        FilterGeometry geometry = FilterGeometry.sharded(keys, fpp, 64L * 1024 * 1024 * 8);
        log("A filter past 2^32 bits: %,d keys at fpp %s, %d shards", keys, fpp, geometry.shards());
        RedisBloomFilter huge = RedisBloomFilter.builder("past-2-32", geometry, store).checkTimeout(Duration.ofSeconds(5))
                .build();
        long started = System.nanoTime();
        huge.load(LongStream.rangeClosed(1, keys).boxed());
        double seconds = (System.nanoTime() - started) / 1e9;
        long present = 0;
        for (long from = 1; from <= 100_000; from += 1000) {
            List<Long> ids = new ArrayList<>(1000);
            for (long i = 0; i < 1000; i++) {
                ids.add(1 + (from + i) * (keys / 100_001));
            }
            present += huge.checkAll(ids).stream().filter(answer -> answer == Membership.PRESENT).count();
        }
        long positives = 0;
        for (long from = 0; from < 200_000; from += 1000) {
            List<Long> ids = new ArrayList<>(1000);
            for (long i = 0; i < 1000; i++) {
                ids.add(keys + 1 + from + i);
            }
            positives += huge.checkAll(ids).stream().filter(answer -> answer == Membership.PRESENT).count();
        }
        long rawBits = (long) (-keys * Math.log(fpp) / (Math.log(2) * Math.log(2)));
        report.append("## A filter past one Redis string\n\n")
                .append(String.format("%,d keys at fpp %s need %,d bits, more than the 2^32 bits one Redis string holds;",
                        keys, fpp, rawBits))
                .append(String.format(" the filter is split into %d shards of %,d bits (64 MiB). Generated keys,", geometry.shards(),
                        geometry.bits()))
                .append(" standalone Redis.\n\n| | |\n|---|---|\n")
                .append(String.format("| load (build, upload, swap) | %.1f s, %,.0f keys/s |%n", seconds, keys / seconds))
                .append(String.format("| present keys checked | 100,000, of which passed: %,d |%n", present))
                .append(String.format("| absent keys checked | 200,000, measured fpp %.5f (theoretical %.5f) |%n%n",
                        positives / 200_000.0, geometry.expectedFpp(keys)));
        report.targets(List.of(new Target("a filter past 2^32 bits loads and has no false negative", present,
                String.format("%,d of 100,000 present keys passed", present), present == 100_000).inEveryRun()));
        for (int shard = 0; shard < geometry.shards(); shard++) {
            store.delete(huge.keys().live(shard));
        }
    }
}
