package dev.bloomguard.bench;

import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.hash.BitPositions;
import dev.bloomguard.core.hash.KeyHash;

/**
 * The hashing share of a check, murmur3 against siphash: the k offsets and the shard of one key
 * ({@link BitPositions#fillSharded}) in a filter of 1,000,000 keys at fpp 0.01 (k = 7), for an
 * integer key (the fast path, no String) and a UUID's text. No Redis: a check by Redis adds a
 * round trip of 50–90 µs, so this is the whole of what the hash choice changes.
 *
 * <p>Run: {@code java -cp <guard-bench classpath> org.openjdk.jmh.Main KeyHashBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class KeyHashBenchmark {

    private static final FilterGeometry GEOMETRY = FilterGeometry.of(1_000_000, 0.01);
    private static final int KEYS = 1024;

    @Param({ "murmur3", "siphash" })
    public String hash;

    private KeyHash keyHash;
    private final Long[] ids = new Long[KEYS];
    private final String[] uuids = new String[KEYS];
    private final long[] offsets = new long[GEOMETRY.hashes()];
    private int next;

    @Setup
    public void setUp() {
        keyHash = hash.equals("siphash") ? KeyHash.sipHash(KeyHash.newSecret()) : KeyHash.murmur3();
        for (int i = 0; i < KEYS; i++) {
            ids[i] = 1_000_000_000L + i * 7919L;
            uuids[i] = UUID.randomUUID().toString();
        }
    }

    @Benchmark
    public void integerKey(Blackhole blackhole) {
        int shard = BitPositions.fillSharded(keyHash, ids[next++ & (KEYS - 1)], GEOMETRY.bits(), GEOMETRY.hashes(), 1,
                offsets, 0);
        blackhole.consume(shard);
        blackhole.consume(offsets);
    }

    @Benchmark
    public void uuidTextKey(Blackhole blackhole) {
        int shard = BitPositions.fillSharded(keyHash, uuids[next++ & (KEYS - 1)], GEOMETRY.bits(), GEOMETRY.hashes(), 1,
                offsets, 0);
        blackhole.consume(shard);
        blackhole.consume(offsets);
    }
}
