package dev.bloomguard.bench;

import java.time.Duration;
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

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.hash.BitPositions;
import dev.bloomguard.core.hash.KeyHash;
import dev.bloomguard.core.mirror.MirrorSettings;
import dev.bloomguard.test.memory.InMemoryBitmapStore;

/**
 * What a check answered by the local mirror costs (issue 15's target: at most 150 ns and no
 * allocation per check), against its floor in the same run: hashing the key into its k offsets,
 * which every check does. No network: a mirror hit never calls Redis, and the filter's store is
 * in memory so that a check the mirror cannot answer would show as far slower, not as a hang.
 * Run with {@code -prof gc} for the allocation per check ({@code gc.alloc.rate.norm}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class MirrorHitBenchmark {

    private static final int KEYS = 1_000_000;
    /** Keys checked in turn, boxed once here so that boxing is not in the figure. */
    private static final int ROTATION = 1 << 16;

    private RedisBloomFilter filter;
    private FilterGeometry geometry;
    private final Long[] keys = new Long[ROTATION];
    private final long[] offsets = new long[16];
    private int next;

    @Setup(Level.Trial)
    public void start() throws InterruptedException {
        geometry = FilterGeometry.of(KEYS, 0.01);
        filter = RedisBloomFilter.builder("mirror-hit", geometry, InMemoryBitmapStore.create())
                .mirror(MirrorSettings.of(256L << 20, Duration.ofHours(1))).build();
        filter.load(LongStream.rangeClosed(1, KEYS).boxed());
        for (int i = 0; i < ROTATION; i++) {
            keys[i] = (long) (1 + (i * 15L) % KEYS);
        }
        // Fill the mirror's pages: each first check of a page asks the store and loads it in the background.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!allFromMirror()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the mirror did not fill: " + filter.mirrorStats().orElseThrow());
            }
            Thread.sleep(50);
        }
    }

    private boolean allFromMirror() {
        long before = filter.mirrorStats().orElseThrow().hits();
        for (Long key : keys) {
            if (filter.check(key) != Membership.PRESENT) {
                throw new IllegalStateException("a loaded key was not present: " + key);
            }
        }
        return filter.mirrorStats().orElseThrow().hits() - before == ROTATION;
    }

    @TearDown(Level.Trial)
    public void stop() {
        if (filter.mirrorStats().orElseThrow().hits() == 0) {
            throw new IllegalStateException("no check was answered by the mirror");
        }
        filter.close();
    }

    private Long nextKey() {
        next = (next + 1) & (ROTATION - 1);
        return keys[next];
    }

    /** A present key answered from the mirror's page. */
    @Benchmark
    public Membership mirrorHit() {
        return filter.check(nextKey());
    }

    /** The floor: the same key's shard and k offsets, as a check computes them. */
    @Benchmark
    public int hashOnly() {
        return BitPositions.fillSharded(KeyHash.murmur3(), nextKey(), geometry.bits(), geometry.hashes(),
                geometry.shards(), offsets, 0);
    }
}
