package dev.bloomguard.test.memory;

import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import dev.bloomguard.core.redis.BitmapStore;
import dev.bloomguard.core.redis.LettuceBitmapStore;
import dev.bloomguard.core.redis.LettuceConnections;
import dev.bloomguard.embedded.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * The contract on the Redis store and a real redis-server, started for this class (flushed before
 * each test); time passes for real.
 */
class RedisBitmapStoreContractTests extends BitmapStoreContract {

    private static RedisServer redis;
    private static RedisClient client;
    private static StatefulRedisConnection<String, String> admin;
    private LettuceConnections connections;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
        client = RedisClient.create("redis://127.0.0.1:" + redis.port());
        admin = client.connect();
    }

    @AfterAll
    static void stopRedis() {
        admin.close();
        client.shutdown();
        redis.close();
    }

    @Override
    BitmapStore newStore() {
        admin.sync().flushall();
        connections = LettuceConnections.of(client);
        return LettuceBitmapStore.create(connections, Duration.ofSeconds(10));
    }

    @Override
    void advance(Duration time) {
        try {
            Thread.sleep(time.toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    @Override
    long subscribers(String channel) {
        return admin.sync().pubsubNumsub(channel).getOrDefault(channel, 0L);
    }

    @Override
    void closeStore(BitmapStore store) {
        connections.close();
    }
}
