package dev.bloomguard.core.redis;

import static dev.bloomguard.core.redis.BitCommands.journalAndSetBitsCommands;
import static dev.bloomguard.core.redis.BitCommands.receipts;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.lettuce.core.RedisFuture;

/**
 * The commands of an add ({@link AddStore}): per shard {@code RPUSH}, {@code BITFIELD SET}s and
 * {@code HINCRBY}, pipelined in one call ({@link BitCommands#journalAndSetBitsCommands}), blocking or not.
 */
final class AddCommands implements AddStore {

    private final RedisCalls calls;
    private final Duration operationTimeout;

    AddCommands(RedisCalls calls, Duration operationTimeout) {
        this.calls = calls;
        this.operationTimeout = operationTimeout;
    }

    @Override
    public CompletableFuture<List<AddReceipt>> journalAndSetBitsManyAsync(List<ShardAdds> adds) {
        List<RedisFuture<?>> replies = new ArrayList<>();
        return calls.callAsync("RPUSH+BITFIELD SET", operationTimeout, commands -> journalAndSetBitsCommands(commands, adds,
                replies)).thenApply(last -> receipts(adds, replies));
    }

    @Override
    public List<AddReceipt> journalAndSetBitsMany(List<ShardAdds> adds) {
        List<RedisFuture<?>> replies = new ArrayList<>();
        calls.call("RPUSH+BITFIELD SET", operationTimeout, commands -> journalAndSetBitsCommands(commands, adds, replies));
        return receipts(adds, replies);
    }
}
