package dev.bloomguard.spring.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.embedded.RedisServer;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BloomGuardRejectedException;
import dev.bloomguard.spring.ReadmeExamplesTests;
import dev.bloomguard.spring.RealServers;
import dev.bloomguard.spring.warmup.FilterWarmer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The Redis ACL that {@code docs/operations.md} gives operators is enough, and no more than
 * needed shows as less: the test creates the documented user with the documented line, runs two
 * guarded instances as that user through warmup, checks, adds, a rebuild (journal replay and
 * swap), journal maintenance, the rewind check, status reads and the mirrors' pub/sub, and then
 * asks Redis's own {@code ACL LOG}, which records every command, key or channel a user was
 * denied, whether anything was refused. Taking one command away shows what an operator would see.
 */
class RedisAclTests {

    private static final String TABLE = "acl_users";
    private static final String USER = "bloomguard";
    private static final String PASSWORD = "change-me";

    @Test
    void theDocumentedAclRunsLoadCheckAddRebuildAndMirrorsWithoutOneDeniedCommand() throws Exception {
        GuardedApp.createUsers(TABLE, 5000);
        String warmup = "SELECT id FROM " + TABLE;
        String[] asTheUser = { "spring.data.redis.username=" + USER, "spring.data.redis.password=" + PASSWORD,
                "bloom-guard.filters.user.local-mirror.enabled=true",
                "bloom-guard.filters.user.local-mirror.max-memory=4MB",
                "bloom-guard.filters.user.negative-cache.enabled=true",
                "bloom-guard.rewind-check-interval=200ms", "bloom-guard.status-refresh-interval=200ms" };
        try (RedisServer redis = RedisServer.start();
                RedisClient client = RedisClient.create("redis://127.0.0.1:" + redis.port());
                StatefulRedisConnection<String, String> admin = client.connect()) {
            assertThat(acl(admin, documentedAclLine())).isEqualTo("OK");
            if (knowsClientSetinfoRules(admin)) {
                assertThat(acl(admin, "SETUSER", USER, documentedHandshakeRule())).isEqualTo("OK");
            }
            // The documented default prefix, "bg", so the documented key and channel patterns are the ones tested.
            try (ConfigurableApplicationContext a = GuardedApp.start(redis.port(), "bg", TABLE, warmup, asTheUser);
                    ConfigurableApplicationContext b = GuardedApp.start(redis.port(), "bg", TABLE, warmup, asTheUser)) {
                GuardedApp.Directory onA = a.getBean(GuardedApp.Directory.class);
                GuardedApp.Directory onB = b.getBean(GuardedApp.Directory.class);
                for (long id = 2; id <= 2_000; id += 2) {
                    assertThat(onB.find(id)).isEqualTo(id);
                }
                assertThat(GuardedApp.rejected(onA)).as("absent ids blocked, as the user").isGreaterThan(950);
                long created = onA.create();
                assertThat(onB.find(created)).as("added on a, found on b").isEqualTo(created);
                long inTransaction = onA.createInTransaction();
                assertThat(onB.find(inTransaction)).isEqualTo(inTransaction);

                RedisBloomFilter filter = a.getBean(BloomFilterRegistry.class).filter("user");
                assertThat(a.getBean(FilterWarmer.class).rebuild("user", true).get().keys()).as("seeded and created rows")
                        .isEqualTo(5_002);
                filter.maintainJournal();
                assertThat(filter.verifyNotBehind()).as("rewind check: Redis is not behind").isFalse();
                assertThat(onB.find(created)).as("a journaled add survives the rebuild").isEqualTo(created);
                // A remembered miss: a row deleted since the load passes the filter and is not found.
                long falsePositive = 4;
                RealServers.execute("DELETE FROM " + TABLE + " WHERE id = " + falsePositive);
                assertThat(onB.lookup(falsePositive)).isEmpty();
                assertThatThrownBy(() -> onB.lookup(falsePositive))
                        .isInstanceOf(BloomGuardRejectedException.class);
                assertThat(filter.isRememberedMissAsync(falsePositive, "never-asked#lookup()").join()).isFalse();
                filter.add(falsePositive);
                assertThat(onB.lookup(falsePositive)).as("forgotten by the add, runs again").isEmpty();
                assertThat(admin.sync().pubsubNumsub(filter.keys().events()).get(filter.keys().events()))
                        .as("both mirrors subscribed to the filter's events").isEqualTo(2L);
                Thread.sleep(600);

                assertThat(admin.sync().aclLog()).as("commands, keys or channels Redis denied the documented user")
                        .isEmpty();

                // Without BITFIELD_RO a check cannot read the bits: the call is let through and counted.
                acl(admin, "SETUSER", USER, "-bitfield_ro");
                MeterRegistry meters = b.getBean(MeterRegistry.class);
                double redisErrors = redisErrors(meters);
                assertThatCode(() -> onB.find(1_000_001)).as("an absent id, unchecked").doesNotThrowAnyException();
                assertThat(redisErrors(meters) - redisErrors).as("bypassed checks with reason=redis-error")
                        .isEqualTo(1);
                List<Map<String, Object>> denied = admin.sync().aclLog();
                assertThat(denied).isNotEmpty();
                assertThat(denied.get(0)).containsEntry("object", "bitfield_ro").containsEntry("username", USER);
            }
        }
    }

    private static double redisErrors(MeterRegistry meters) {
        return meters.get("bloomguard.checks").tag("filter", "user").tag("outcome", "bypassed")
                .tag("reason", "redis-error").counter().count();
    }

    /** The {@code ACL SETUSER bloomguard ...} line of the operator's guide, split into its arguments. */
    private static String[] documentedAclLine() throws IOException {
        String line = Files.readAllLines(ReadmeExamplesTests.projectRoot().resolve("docs/operations.md")).stream()
                .filter(text -> text.startsWith("ACL SETUSER " + USER + " ")).findFirst()
                .orElseThrow(() -> new AssertionError("docs/operations.md has no line 'ACL SETUSER " + USER + " ...'"));
        String[] words = line.trim().split("\\s+");
        assertThat(words).contains(">" + PASSWORD, "~bg:*", "&bg:*");
        return Arrays.copyOfRange(words, 1, words.length);
    }

    /**
     * The guide's rule for Lettuce's {@code CLIENT SETINFO} at connect, which Redis 6.2 and 7.2+
     * log as denied without it, and Redis 7.0 refuses to name.
     */
    private static String documentedHandshakeRule() throws IOException {
        String guide = Files.readString(ReadmeExamplesTests.projectRoot().resolve("docs/operations.md"));
        assertThat(guide).as("docs/operations.md on Lettuce's handshake").contains("add `+client|setinfo` to the line");
        return "+client|setinfo";
    }

    /** Redis 6.2, or 7.2 and later: not 7.0 or 7.1, which know no {@code CLIENT SETINFO}. */
    private static boolean knowsClientSetinfoRules(StatefulRedisConnection<String, String> admin) {
        String version = admin.sync().info("server").lines().filter(line -> line.startsWith("redis_version:"))
                .findFirst().orElseThrow().substring("redis_version:".length()).trim();
        return !(version.startsWith("7.0.") || version.startsWith("7.1."));
    }

    private static String acl(StatefulRedisConnection<String, String> admin, String... arguments) {
        return admin.sync().dispatch(CommandType.ACL, new StatusOutput<>(StringCodec.UTF8),
                new CommandArgs<>(StringCodec.UTF8).addValues(arguments));
    }
}
