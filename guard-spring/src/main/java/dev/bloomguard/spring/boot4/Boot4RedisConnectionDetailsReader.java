package dev.bloomguard.spring.boot4;

import java.util.List;
import java.util.Optional;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.ssl.SslBundle;

import dev.bloomguard.spring.autoconfigure.BloomGuardRedisException;
import dev.bloomguard.spring.autoconfigure.RedisConnectionDetailsReader;

/**
 * {@link RedisConnectionDetailsReader} of Spring Boot 4, whose {@link DataRedisConnectionDetails}
 * carries one SSL bundle for every kind of connection, and knows a master/replica kind that a
 * connection of bloom-guard's own does not make (it fails startup saying so). A Sentinel
 * description wins over a Cluster one, as Boot's own connection factories decide. Loaded only on
 * Boot 4 ({@link BloomGuardBoot4RedisAutoConfiguration}).
 */
final class Boot4RedisConnectionDetailsReader implements RedisConnectionDetailsReader {

    private final ObjectProvider<DataRedisConnectionDetails> details;

    Boot4RedisConnectionDetailsReader(ObjectProvider<DataRedisConnectionDetails> details) {
        this.details = details;
    }

    @Override
    public Optional<DescribedRedis> read() {
        DataRedisConnectionDetails bean = details.getIfUnique();
        if (bean == null || RedisConnectionDetailsReader.isFromProperties(bean)) {
            return Optional.empty();
        }
        String source = "DataRedisConnectionDetails (" + bean.getClass().getName() + ")";
        Credentials credentials = new Credentials(bean.getUsername(), bean.getPassword());
        SslBundle sslBundle = bean.getSslBundle();
        DataRedisConnectionDetails.Sentinel sentinel = bean.getSentinel();
        if (sentinel != null) {
            return Optional.of(DescribedRedis.sentinel(source, credentials, sentinel.getMaster(), nodes(sentinel.getNodes()),
                    new Credentials(sentinel.getUsername(), sentinel.getPassword()), sentinel.getDatabase(), sslBundle));
        }
        DataRedisConnectionDetails.Cluster cluster = bean.getCluster();
        if (cluster != null) {
            return Optional.of(DescribedRedis.cluster(source, credentials, nodes(cluster.getNodes()), sslBundle));
        }
        if (bean.getMasterReplica() != null) {
            throw new BloomGuardRedisException("bloom-guard cannot connect to Redis: the application's " + source
                    + " describes a master/replica Redis, and bloom-guard's own Lettuce connection connects to one server,"
                    + " through Sentinels or to a Redis Cluster", "Set bloom-guard.redis.host and bloom-guard.redis.port to"
                            + " the master (or bloom-guard.redis.sentinel.* to its Sentinels).");
        }
        DataRedisConnectionDetails.Standalone standalone = bean.getStandalone();
        if (standalone == null) {
            throw DescribedRedis.nothingDescribed(source, "getStandalone(), getSentinel(), getCluster(), getMasterReplica()");
        }
        return Optional.of(DescribedRedis.standalone(source, credentials, standalone.getHost(), standalone.getPort(),
                standalone.getDatabase(), sslBundle));
    }


    private static List<String> nodes(List<DataRedisConnectionDetails.Node> nodes) {
        return nodes.stream().map(node -> node.host() + ":" + node.port()).toList();
    }
}
