package dev.bloomguard.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.bloomguard.core.Membership;
import dev.bloomguard.core.filter.RedisBloomFilter;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.BootNames;
import dev.bloomguard.spring.RealServers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * A configured {@code hash-secret} stays in the application's configuration: whoever can read
 * Redis (a read-only user, an RDB backup) finds it in no key, no value, after startup, loads,
 * adds and rollout heartbeats. Only its fingerprint, in the key names, shows which secret a
 * generation uses.
 */
class HashSecretStorageTests {

    private final String secret = HexFormat.of().formatHex(randomBytes());

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BootNames.redisAutoConfiguration(), BloomGuardAutoConfiguration.class))
            .withPropertyValues(RealServers.redisProperties())
            .withPropertyValues("bloom-guard.key-prefix=secret-storage", "bloom-guard.redis-timeout=5s",
                    "bloom-guard.rollout.heartbeat-interval=100ms", "bloom-guard.filters.user.expected-insertions=1000",
                    "bloom-guard.filters.user.hash=siphash", "bloom-guard.filters.user.hash-secret=" + secret.toUpperCase(Locale.ROOT));

    @Test
    void aConfiguredSecretIsWrittenToNoRedisKeyOrValue() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            RedisBloomFilter user = context.getBean(BloomFilterRegistry.class).filter("user");
            user.load(LongStream.rangeClosed(1, 500).boxed());
            user.add(501L);
            user.generations().ifPresent(generations -> generations.heartbeat());
            assertThat(user.check(501L)).isEqualTo(Membership.PRESENT);
            assertThat(user.keys().live()).as("the filter is hashed under the configured secret")
                    .contains(user.hash().id());

            List<String> holding = keysHolding(List.of(secret.getBytes(StandardCharsets.US_ASCII),
                    secret.toUpperCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII), HexFormat.of().parseHex(secret)));
            assertThat(holding).as("Redis keys whose name or value holds the configured secret").isEmpty();
        });
    }

    private static byte[] randomBytes() {
        byte[] bytes = new byte[16];
        new SecureRandom().nextBytes(bytes);
        return bytes;
    }

    /** Every key in the test Redis whose name or value contains one of {@code needles}. */
    private static List<String> keysHolding(List<byte[]> needles) {
        List<String> holding = new ArrayList<>();
        RedisClient client = RedisClient.create("redis://" + RealServers.redis().host() + ":" + RealServers.redis().port());
        try (StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE)) {
            RedisCommands<byte[], byte[]> redis = connection.sync();
            List<byte[]> keys = redis.keys("*".getBytes(StandardCharsets.US_ASCII));
            assertThat(keys).as("keys in Redis").isNotEmpty();
            for (byte[] key : keys) {
                List<byte[]> contents = new ArrayList<>(List.of(key));
                switch (redis.type(key)) {
                    case "string" -> contents.add(redis.get(key));
                    case "hash" -> redis.hgetall(key).forEach((field, value) -> {
                        contents.add(field);
                        contents.add(value);
                    });
                    case "list" -> contents.addAll(redis.lrange(key, 0, -1));
                    case "set" -> contents.addAll(redis.smembers(key));
                    case "zset" -> contents.addAll(redis.zrange(key, 0, -1));
                    default -> contents.add(redis.dump(key));
                }
                if (contents.stream().anyMatch(content -> needles.stream().anyMatch(needle -> contains(content, needle)))) {
                    holding.add(new String(key, StandardCharsets.UTF_8));
                }
            }
        }
        finally {
            client.shutdown();
        }
        return holding;
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        if (haystack == null) {
            return false;
        }
        outer: for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
