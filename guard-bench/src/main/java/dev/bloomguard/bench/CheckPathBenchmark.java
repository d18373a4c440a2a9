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

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.hash.BitPositions;
import dev.bloomguard.core.hash.KeyHash;
import dev.bloomguard.test.memory.InMemoryBitmapStore;

/**
 * What the check path costs on this side of the store: the probe, the store's read and the
 * verdict, for a present key and for an absent one (the one answer that weighs every reason not to
 * block), against the floor every check pays in the same run: hashing the key into its k offsets.
 * The store is in memory, so that the figure is the filter's code and not the network's; a check
 * over Redis adds a round trip of tens of microseconds to it.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CheckPathBenchmark {

    private static final int KEYS = 1_000_000;
    /** Keys checked in turn, boxed once here so that boxing is not in the figure. */
    private static final int ROTATION = 1 << 16;

    private RedisBloomFilter filter;
    private FilterGeometry geometry;
    private final Long[] present = new Long[ROTATION];
    private final Long[] absent = new Long[ROTATION];
    private final long[] offsets = new long[16];
    private int next;

    @Setup(Level.Trial)
    public void start() {
        geometry = FilterGeometry.of(KEYS, 0.01);
        filter = RedisBloomFilter.builder("check-path", geometry, InMemoryBitmapStore.create()).build();
        filter.load(LongStream.rangeClosed(1, KEYS).boxed());
        int found = 0;
        for (long candidate = KEYS + 1; found < ROTATION; candidate++) {
            if (filter.check(candidate) == Membership.ABSENT) {
                absent[found++] = candidate;
            }
        }
        for (int i = 0; i < ROTATION; i++) {
            present[i] = (long) (1 + (i * 15L) % KEYS);
            if (filter.check(present[i]) != Membership.PRESENT) {
                throw new IllegalStateException("a loaded key was not present: " + present[i]);
            }
        }
    }

    @TearDown(Level.Trial)
    public void stop() {
        filter.close();
    }

    private int nextIndex() {
        next = (next + 1) & (ROTATION - 1);
        return next;
    }

    /** A loaded key: all k bits set. */
    @Benchmark
    public Membership presentKey() {
        return filter.check(present[nextIndex()]);
    }

    /** A key never added: a clear bit, judged by the verdict. */
    @Benchmark
    public Membership absentKey() {
        return filter.check(absent[nextIndex()]);
    }

    /** The floor: the same key's shard and k offsets, as a check computes them. */
    @Benchmark
    public int hashOnly() {
        return BitPositions.fillSharded(KeyHash.murmur3(), present[nextIndex()], geometry.bits(), geometry.hashes(),
                geometry.shards(), offsets, 0);
    }
}
