package dev.bloomguard.core.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.bloomguard.core.FilterGeometry;
import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.testsupport.RedisServerExtension;
import io.lettuce.core.AclSetuserArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.protocol.CommandType;

/**
 * The store's scripts go by their SHA-1 ({@code EVALSHA}), and whole ({@code EVAL}) only when
 * Redis does not have them: after a restart, a failover to a replica or {@code SCRIPT FLUSH}, a
 * load must still swap, or the filter never becomes ready; and a user whose ACL predates
 * {@code EVALSHA} must still load.
 */
class LuaScriptsTests {

    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    @Test
    void aRedisThatLostTheScriptsIsSentThemWholeOnceAndThenByTheirDigest() throws Exception {
        try (LettuceClients clients = LettuceClients.standalone(redis.port())) {
            RedisBloomFilter filter = RedisBloomFilter.builder("scripted", FilterGeometry.of(10_000, 0.01),
                    LettuceBitmapStore.create(clients, Duration.ofSeconds(10))).keyPrefix("lua1").build();
            filter.load(LongStream.rangeClosed(1, 1_000).boxed());
            long byDigest = calls("evalsha");
            long whole = calls("eval");

            redis.admin().scriptFlush();
            filter.load(LongStream.rangeClosed(1, 2_000).boxed());
            assertThat(calls("eval")).as("each script the second load runs, sent whole once after the flush")
                    .isGreaterThan(whole);
            long wholeAfterFlush = calls("eval");

            filter.load(LongStream.rangeClosed(1, 3_000).boxed());
            assertThat(calls("eval")).as("the third load: every script from Redis's cache").isEqualTo(wholeAfterFlush);
            assertThat(calls("evalsha")).as("sent by their digest").isGreaterThan(byDigest);
            assertPresentAndAbsent(filter, 3_000);
        }
    }

    @Test
    void aUserWhoseAclPredatesEvalshaStillLoadsWithEval() throws Exception {
        redis.admin().aclSetuser("old-acl", AclSetuserArgs.Builder.on().addPassword("secret")
                .allKeys().allChannels().allCommands().removeCommand(CommandType.EVALSHA));
        RedisClient client = RedisClient.create(RedisURI.builder().withHost("127.0.0.1").withPort(redis.port())
                .withAuthentication("old-acl", "secret".toCharArray()).build());
        try (LettuceConnections connections = LettuceConnections.owning(client)) {
            RedisBloomFilter filter = RedisBloomFilter.builder("old-acl", FilterGeometry.of(10_000, 0.01),
                    LettuceBitmapStore.create(connections, Duration.ofSeconds(10))).keyPrefix("lua2").build();
            filter.load(LongStream.rangeClosed(1, 1_000).boxed());
            filter.load(LongStream.rangeClosed(1, 2_000).boxed());
            assertPresentAndAbsent(filter, 2_000);
        }
    }

    private static void assertPresentAndAbsent(RedisBloomFilter filter, long loaded) {
        assertThat(LongStream.rangeClosed(1, loaded).mapToObj(filter::check)).containsOnly(Membership.PRESENT);
        long blocked = LongStream.range(1_000_000, 1_001_000).filter(id -> filter.check(id) == Membership.ABSENT).count();
        assertThat(blocked).as("absent ids of 1,000 blocked").isGreaterThan(950);
    }

    private static long calls(String command) {
        return redis.commandCalls(command);
    }
}
