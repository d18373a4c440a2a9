package dev.bloomguard.core.redis;

import static dev.bloomguard.core.redis.BitCommands.BITFIELD_RO;
import static dev.bloomguard.core.redis.BitCommands.bytes;

import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import io.lettuce.core.RedisFuture;

import dev.bloomguard.core.redis.BitCommands.BitsOutput;

/**
 * The commands of a check ({@link CheckStore}): one {@code BITFIELD_RO} per shard, blocking or not,
 * each bounded by the caller's timeout; and {@code GETRANGE} for the mirror's pages.
 */
final class CheckCommands implements CheckStore {

    private final ConcurrentHashMap<String, byte[]> checkedKeys = new ConcurrentHashMap<>();
    private final RedisCalls calls;
    private final Duration operationTimeout;

    CheckCommands(RedisCalls calls, Duration operationTimeout) {
        this.calls = calls;
        this.operationTimeout = operationTimeout;
    }

    @Override
    public BitSet readBits(String key, long[] offsets, int count, Duration timeout) {
        BitfieldGetArgs args = new BitfieldGetArgs(checkedKey(key), offsets, count);
        return calls.call("BITFIELD_RO", timeout, commands -> List.of(commands.dispatch(BITFIELD_RO, new BitsOutput(), args)));
    }

    @Override
    public List<BitSet> readBitsMany(List<String> keys, List<long[]> offsets, Duration timeout) {
        if (keys.size() == 1) {
            return List.of(readBits(keys.get(0), offsets.get(0), offsets.get(0).length, timeout));
        }
        List<RedisFuture<BitSet>> replies = new ArrayList<>(keys.size());
        calls.call("BITFIELD_RO", timeout, commands -> {
            for (int i = 0; i < keys.size(); i++) {
                long[] probes = offsets.get(i);
                replies.add(commands.dispatch(BITFIELD_RO, new BitsOutput(),
                        new BitfieldGetArgs(checkedKey(keys.get(i)), probes, probes.length)));
            }
            return replies;
        });
        List<BitSet> answers = new ArrayList<>(replies.size());
        for (RedisFuture<BitSet> reply : replies) {
            answers.add(reply.toCompletableFuture().join());
        }
        return answers;
    }

    @Override
    public CompletableFuture<BitSet> readBitsAsync(String key, long[] offsets, int count, Duration timeout) {
        BitfieldGetArgs args = new BitfieldGetArgs(checkedKey(key), offsets, count);
        return calls.callAsync("BITFIELD_RO", timeout,
                commands -> List.of(commands.dispatch(BITFIELD_RO, new BitsOutput(), args)));
    }

    @Override
    public CompletableFuture<List<BitSet>> readBitsManyAsync(List<String> keys, List<long[]> offsets,
            Duration timeout) {
        List<RedisFuture<BitSet>> replies = new ArrayList<>(keys.size());
        return calls.<BitSet>callAsync("BITFIELD_RO", timeout, commands -> {
            for (int i = 0; i < keys.size(); i++) {
                long[] probes = offsets.get(i);
                replies.add(commands.dispatch(BITFIELD_RO, new BitsOutput(),
                        new BitfieldGetArgs(checkedKey(keys.get(i)), probes, probes.length)));
            }
            return replies;
        }).thenApply(last -> replies.stream().map(reply -> reply.toCompletableFuture().join()).toList());
    }

    @Override
    public byte[] getRange(String key, long start, long end) {
        byte[] value = calls.call("GETRANGE", operationTimeout, commands -> List.of(commands.getrange(bytes(key), start, end)));
        return value == null ? new byte[0] : value;
    }

    /**
     * The encoded name of a key that checks read: the same few live-shard keys on every call, so
     * encoded once rather than per check. Only checked keys come here, never staging keys.
     */
    private byte[] checkedKey(String key) {
        byte[] raw = checkedKeys.get(key);
        if (raw == null) {
            raw = bytes(key);
            checkedKeys.putIfAbsent(key, raw);
        }
        return raw;
    }
}
