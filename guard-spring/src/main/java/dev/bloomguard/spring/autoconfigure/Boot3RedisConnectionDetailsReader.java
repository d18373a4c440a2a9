package dev.bloomguard.spring.autoconfigure;

import java.util.List;
import java.util.Optional;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails;

/**
 * {@link RedisConnectionDetailsReader} of Spring Boot 3.5, whose {@link RedisConnectionDetails}
 * carries an SSL bundle per kind of connection (standalone, Sentinel, Cluster). Loaded only where
 * that type exists: {@link BloomGuardRedisConfiguration} registers it under a class condition by name.
 * A Sentinel description wins over a Cluster one, as Boot's own connection factories decide.
 */
final class Boot3RedisConnectionDetailsReader implements RedisConnectionDetailsReader {

    private final ObjectProvider<RedisConnectionDetails> details;

    Boot3RedisConnectionDetailsReader(ObjectProvider<RedisConnectionDetails> details) {
        this.details = details;
    }

    @Override
    public Optional<DescribedRedis> read() {
        RedisConnectionDetails bean = details.getIfUnique();
        if (bean == null || RedisConnectionDetailsReader.isFromProperties(bean)) {
            return Optional.empty();
        }
        String source = "RedisConnectionDetails (" + bean.getClass().getName() + ")";
        Credentials credentials = new Credentials(bean.getUsername(), bean.getPassword());
        RedisConnectionDetails.Sentinel sentinel = bean.getSentinel();
        if (sentinel != null) {
            return Optional.of(DescribedRedis.sentinel(source, credentials, sentinel.getMaster(), nodes(sentinel.getNodes()),
                    new Credentials(sentinel.getUsername(), sentinel.getPassword()), sentinel.getDatabase(),
                    sentinel.getSslBundle()));
        }
        RedisConnectionDetails.Cluster cluster = bean.getCluster();
        if (cluster != null) {
            return Optional.of(DescribedRedis.cluster(source, credentials, nodes(cluster.getNodes()), cluster.getSslBundle()));
        }
        RedisConnectionDetails.Standalone standalone = bean.getStandalone();
        if (standalone == null) {
            throw DescribedRedis.nothingDescribed(source, "getStandalone(), getSentinel(), getCluster()");
        }
        return Optional.of(DescribedRedis.standalone(source, credentials, standalone.getHost(), standalone.getPort(),
                standalone.getDatabase(), standalone.getSslBundle()));
    }


    private static List<String> nodes(List<RedisConnectionDetails.Node> nodes) {
        return nodes.stream().map(node -> node.host() + ":" + node.port()).toList();
    }
}
