package dev.bloomguard.bench;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.redisson.api.RBloomFilter;

import com.google.common.hash.BloomFilter;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.core.hash.BitPositions;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

/** The approaches compared, each written the way its users write it. */
final class Approaches {

    private Approaches() {
    }

    /** The baseline: one {@code PING} on the same Lettuce connection bloom-guard uses. */
    static CheckApproach ping(RedisClusterAsyncCommands<byte[], byte[]> commands) {
        return new CheckApproach() {
            @Override
            public String name() {
                return "Redis PING (baseline)";
            }

            @Override
            public boolean contains(long id) throws Exception {
                return "PONG".equals(commands.ping().get(5, TimeUnit.SECONDS));
            }
        };
    }

    static CheckApproach bloomGuard(RedisBloomFilter filter) {
        return new CheckApproach() {
            @Override
            public String name() {
                return "bloom-guard check";
            }

            @Override
            public boolean contains(long id) {
                Membership answer = filter.check(id);
                if (!answer.isDecided()) {
                    throw new IllegalStateException("bloom-guard could not decide: " + answer);
                }
                return answer == Membership.PRESENT;
            }

            @Override
            public int containsAll(List<Long> ids) {
                int present = 0;
                for (Membership answer : filter.checkAll(ids)) {
                    if (!answer.isDecided()) {
                        throw new IllegalStateException("bloom-guard could not decide: " + answer);
                    }
                    present += answer == Membership.PRESENT ? 1 : 0;
                }
                return present;
            }

            @Override
            public boolean batchTellsWhich() {
                return true;
            }
        };
    }

    static CheckApproach redisson(RBloomFilter<String> filter) {
        return new CheckApproach() {
            @Override
            public String name() {
                return "Redisson RBloomFilter.contains";
            }

            @Override
            public boolean contains(long id) {
                return filter.contains(Long.toString(id));
            }

            @Override
            public int containsAll(List<Long> ids) {
                List<String> keys = new ArrayList<>(ids.size());
                ids.forEach(id -> keys.add(Long.toString(id)));
                return (int) filter.contains(keys);
            }
        };
    }

    /** The blog-post style: k {@code GETBIT}s sent back to back, then all replies awaited. */
    static CheckApproach pipelinedGetbit(StatefulRedisConnection<String, String> connection,
            StatefulRedisConnection<String, String> batchConnection, String key, FilterGeometry geometry) {
        RedisAsyncCommands<String, String> async = connection.async();
        RedisAsyncCommands<String, String> batch = batchConnection.async();
        return new CheckApproach() {
            @Override
            public String name() {
                return "pipelined GETBIT x k";
            }

            @Override
            public boolean contains(long id) throws Exception {
                long[] offsets = BitPositions.of(id, geometry.bits(), geometry.hashes());
                List<RedisFuture<Long>> replies = new ArrayList<>(offsets.length);
                for (long offset : offsets) {
                    replies.add(async.getbit(key, offset));
                }
                boolean all = true;
                for (RedisFuture<Long> reply : replies) {
                    all &= reply.get(5, TimeUnit.SECONDS) == 1L;
                }
                return all;
            }

            @Override
            public int containsAll(List<Long> ids) throws Exception {
                int hashes = geometry.hashes();
                List<RedisFuture<Long>> replies = new ArrayList<>(ids.size() * hashes);
                batchConnection.setAutoFlushCommands(false);
                try {
                    for (long id : ids) {
                        for (long offset : BitPositions.of(id, geometry.bits(), hashes)) {
                            replies.add(batch.getbit(key, offset));
                        }
                    }
                    batchConnection.flushCommands();
                }
                finally {
                    batchConnection.setAutoFlushCommands(true);
                }
                int present = 0;
                for (int i = 0; i < ids.size(); i++) {
                    boolean all = true;
                    for (int j = 0; j < hashes; j++) {
                        all &= replies.get(i * hashes + j).get(5, TimeUnit.SECONDS) == 1L;
                    }
                    present += all ? 1 : 0;
                }
                return present;
            }

            @Override
            public boolean batchTellsWhich() {
                return true;
            }
        };
    }

    /** The other blog-post style: a Lua script looping {@code GETBIT} over offsets computed client-side. */
    static CheckApproach luaGetbit(StatefulRedisConnection<String, String> connection, String key,
            FilterGeometry geometry) {
        String script = "for i = 1, #ARGV do if redis.call('GETBIT', KEYS[1], ARGV[i]) == 0 then return 0 end end return 1";
        String sha = connection.sync().scriptLoad(script);
        RedisAsyncCommands<String, String> async = connection.async();
        return new CheckApproach() {
            @Override
            public String name() {
                return "Lua script looping GETBIT";
            }

            @Override
            public boolean contains(long id) throws Exception {
                long[] offsets = BitPositions.of(id, geometry.bits(), geometry.hashes());
                String[] arguments = new String[offsets.length];
                for (int i = 0; i < offsets.length; i++) {
                    arguments[i] = Long.toString(offsets[i]);
                }
                Long reply = async.<Long>evalsha(sha, ScriptOutputType.INTEGER, new String[] { key }, arguments)
                        .get(5, TimeUnit.SECONDS);
                return reply == 1L;
            }
        };
    }

    static CheckApproach guava(BloomFilter<Long> filter) {
        return new CheckApproach() {
            @Override
            public String name() {
                return "Guava BloomFilter (in memory)";
            }

            @Override
            public boolean contains(long id) {
                return filter.mightContain(id);
            }
        };
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
