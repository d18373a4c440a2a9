package dev.bloomguard.core.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;

import dev.bloomguard.core.redis.AddStore.AddReceipt;
import dev.bloomguard.core.redis.AddStore.ShardAdds;

/**
 * The bit commands Lettuce has no method for ({@code BITFIELD_RO}, {@code BITFIELD ... SET}), how
 * an add's pipeline is dispatched and its replies read, and key names as bytes.
 */
final class BitCommands {

    static final int MAX_SETS_PER_COMMAND = 30_000;
    static final int UPLOAD_CHUNK_BYTES = 8 * 1024 * 1024;

    static final ProtocolKeyword BITFIELD_RO = keyword("BITFIELD_RO");
    static final ProtocolKeyword BITFIELD = keyword("BITFIELD");
    static final byte[] SET = "SET".getBytes(StandardCharsets.US_ASCII);
    static final byte[] U1 = "u1".getBytes(StandardCharsets.US_ASCII);

    private BitCommands() {
    }

    /** Dispatches each shard's RPUSH, BITFIELD SETs and INCRBY, collecting every reply in {@code replies}. */
    static List<RedisFuture<?>> journalAndSetBitsCommands(RedisClusterAsyncCommands<byte[], byte[]> commands,
            List<ShardAdds> adds, List<RedisFuture<?>> replies) {
        for (ShardAdds shard : adds) {
            replies.add(commands.rpush(bytes(shard.journalKey()), shard.entries().toArray(new byte[0][])));
            replies.addAll(bitfieldSets(commands, bytes(shard.bitmapKey()), shard.offsets(), shard.offsets().length));
            if (shard.countKey() != null) {
                replies.add(commands.hincrby(bytes(shard.countKey()), bytes(shard.countField()),
                        shard.entries().size()));
            }
        }
        return replies;
    }

    /** Reads each shard's journal length and add count out of the replies, all completed by now. */
    static List<AddReceipt> receipts(List<ShardAdds> adds, List<RedisFuture<?>> replies) {
        List<AddReceipt> receipts = new ArrayList<>(adds.size());
        int reply = 0;
        for (ShardAdds shard : adds) {
            long length = (Long) replies.get(reply).toCompletableFuture().join();
            reply += 1 + (shard.offsets().length + MAX_SETS_PER_COMMAND - 1) / MAX_SETS_PER_COMMAND;
            long count = -1;
            if (shard.countKey() != null) {
                count = (Long) replies.get(reply++).toCompletableFuture().join();
            }
            receipts.add(new AddReceipt(length, count));
        }
        return receipts;
    }

    static List<RedisFuture<?>> bitfieldSets(RedisClusterAsyncCommands<byte[], byte[]> commands, byte[] key,
            long[] offsets, int count) {
        List<RedisFuture<?>> replies = new ArrayList<>();
        for (int start = 0; start < count; start += MAX_SETS_PER_COMMAND) {
            CommandArgs<byte[], byte[]> args = new CommandArgs<>(ByteArrayCodec.INSTANCE).addKey(key);
            for (int i = start; i < Math.min(count, start + MAX_SETS_PER_COMMAND); i++) {
                args.add(SET).add(U1).add(offsets[i]).add(1);
            }
            replies.add(commands.dispatch(BITFIELD, new BitsOutput(), args));
        }
        return replies;
    }

    static byte[] bytes(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }

    static ProtocolKeyword keyword(String name) {
        byte[] raw = name.getBytes(StandardCharsets.US_ASCII);
        return new ProtocolKeyword() {
            @Override
            public byte[] getBytes() {
                return raw;
            }

            @Override
            public String toString() {
                return name;
            }
        };
    }

    /** Collects a {@code BITFIELD} reply of 0/1 integers as the set of indexes that were 1. */
    static final class BitsOutput extends CommandOutput<byte[], byte[], BitSet> {

        private int index;

        BitsOutput() {
            super(ByteArrayCodec.INSTANCE, new BitSet());
        }

        @Override
        public void set(long integer) {
            if (integer != 0) {
                output.set(index);
            }
            index++;
        }
    }
}
