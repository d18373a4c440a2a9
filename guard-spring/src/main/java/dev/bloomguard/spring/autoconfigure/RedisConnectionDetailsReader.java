package dev.bloomguard.spring.autoconfigure;

import java.util.List;
import java.util.Optional;

import org.springframework.boot.ssl.SslBundle;

/**
 * Reads where the application's Redis connection-details bean (Testcontainers'
 * {@code @ServiceConnection}, Docker Compose, or the application's own) says its Redis is, for a
 * Lettuce connection of the starter's own. The bean's type depends on the Spring Boot generation,
 * Boot 3.5's {@code RedisConnectionDetails} or Boot 4's {@code DataRedisConnectionDetails}, so the
 * starter registers one reader per generation, each loaded only where its type exists
 * ({@link BloomGuardRedisConfiguration} on 3.5, {@code dev.bloomguard.spring.boot4} on 4.0). Not
 * for applications to implement or call.
 */
@FunctionalInterface
public interface RedisConnectionDetailsReader {

    /**
     * The Redis a connection-details bean of the application's own describes. Empty when the only
     * one is Spring Boot's, made from {@code spring.data.redis.*}: the starter reads those
     * properties itself, so that a message can name the property that is wrong.
     *
     * @throws BloomGuardRedisException when the bean describes a Redis the starter cannot connect to
     */
    Optional<DescribedRedis> read();

    /**
     * A Redis as a connection-details bean describes it.
     *
     * @param source the bean, as the startup log and messages name it (its type; never a credential)
     * @param coordinates its server, Sentinel or Cluster nodes, database and credentials, in the
     *        names of {@code bloom-guard.redis}; nothing else is set
     * @param sslBundle the bundle its TLS connection uses, or null for plain text
     */
    record DescribedRedis(String source, BloomGuardRedisProperties coordinates, SslBundle sslBundle) {

        /**
         * The failure of a bean that describes no Redis at all ({@code getters} all return null).
         * Spring Boot's own connection factories read the standalone description when there is no
         * Sentinel or Cluster one, so they would fail on it too, with a NullPointerException.
         */
        public static BloomGuardRedisException nothingDescribed(String source, String getters) {
            return new BloomGuardRedisException("bloom-guard cannot connect to Redis: the application's " + source
                    + " describes no Redis: neither a standalone server, nor Sentinels, nor a Cluster (" + getters
                    + " all return null)", "Make the bean describe its Redis, as Spring Boot's own Redis"
                            + " configuration needs, or set bloom-guard.redis.host and bloom-guard.redis.port to the"
                            + " Redis the filters live in.");
        }

        /** One server at {@code host:port}. */
        public static DescribedRedis standalone(String source, Credentials credentials, String host, int port,
                int database, SslBundle sslBundle) {
            BloomGuardRedisProperties coordinates = coordinates(credentials, sslBundle);
            coordinates.setHost(host);
            coordinates.setPort(port);
            coordinates.setDatabase(database);
            return new DescribedRedis(source, coordinates, sslBundle);
        }

        /** The master that Sentinels at {@code nodes} (host:port) know as {@code master}, logging in to them with {@code sentinelCredentials}. */
        public static DescribedRedis sentinel(String source, Credentials credentials, String master, List<String> nodes,
                Credentials sentinelCredentials, int database, SslBundle sslBundle) {
            BloomGuardRedisProperties coordinates = coordinates(credentials, sslBundle);
            coordinates.getSentinel().setMaster(master);
            coordinates.getSentinel().setNodes(nodes);
            coordinates.getSentinel().setUsername(sentinelCredentials.username());
            coordinates.getSentinel().setPassword(sentinelCredentials.password());
            coordinates.setDatabase(database);
            return new DescribedRedis(source, coordinates, sslBundle);
        }

        /** A Redis Cluster reached through {@code nodes} (host:port). */
        public static DescribedRedis cluster(String source, Credentials credentials, List<String> nodes, SslBundle sslBundle) {
            BloomGuardRedisProperties coordinates = coordinates(credentials, sslBundle);
            coordinates.getCluster().setNodes(nodes);
            return new DescribedRedis(source, coordinates, sslBundle);
        }

        private static BloomGuardRedisProperties coordinates(Credentials credentials, SslBundle sslBundle) {
            BloomGuardRedisProperties coordinates = new BloomGuardRedisProperties();
            coordinates.setUsername(credentials.username());
            coordinates.setPassword(credentials.password());
            coordinates.getSsl().setEnabled(sslBundle != null);
            return coordinates;
        }
    }

    /** A login, either part possibly null. */
    record Credentials(String username, String password) {
    }

    /** Whether {@code details} is Spring Boot's own, made from {@code spring.data.redis.*} (package-private in Boot, so known by name). */
    static boolean isFromProperties(Object details) {
        String type = details.getClass().getName();
        return type.equals("org.springframework.boot.autoconfigure.data.redis.PropertiesRedisConnectionDetails")
                || type.equals("org.springframework.boot.data.redis.autoconfigure.PropertiesDataRedisConnectionDetails");
    }
}
