package dev.bloomguard.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Settings under {@code bloom-guard.redis}: a Redis connection of the starter's own, named as
 * {@code spring.data.redis.*} names them. When any is set the starter opens and owns a Lettuce
 * connection from them, whatever the application's {@code RedisConnectionFactory} is; when none
 * is set and the application's factory is not Lettuce's, the coordinates come from the
 * application's Redis connection-details bean when it has one of its own, otherwise the same names
 * are read from {@code spring.data.redis}. Unset fields are null, so that "set" can be told from "default".
 */
public class BloomGuardRedisProperties {

    /** Connection URL (redis://, rediss:// for TLS, redis-sentinel://); overrides host, port, username, password and database. */
    private String url;

    /** Redis server host. Default: localhost. */
    private String host;

    /** Redis server port. Default: 6379. */
    private Integer port;

    /** Login username (Redis 6 ACL). */
    private String username;

    /** Login password. */
    private String password;

    /** Database index (standalone and Sentinel). Default: 0. */
    private Integer database;

    /** Client name the connection announces with CLIENT SETNAME. Default: bloom-guard. */
    private String clientName;

    /** Default command timeout of the connection; each check and write is bounded by bloom-guard's own timeouts as well. Default: 60s. */
    private Duration timeout;

    /** Connection timeout. Default: 10s. */
    private Duration connectTimeout;

    /** TLS. */
    private final Ssl ssl = new Ssl();

    /** Redis Sentinel. */
    private final Sentinel sentinel = new Sentinel();

    /** Redis Cluster. */
    private final Cluster cluster = new Cluster();

    public String getUrl() {
        return url;
    }

    public void setUrl(String url) {
        this.url = url;
    }

    public String getHost() {
        return host;
    }

    public void setHost(String host) {
        this.host = host;
    }

    public Integer getPort() {
        return port;
    }

    public void setPort(Integer port) {
        this.port = port;
    }

    public String getUsername() {
        return username;
    }

    public void setUsername(String username) {
        this.username = username;
    }

    public String getPassword() {
        return password;
    }

    public void setPassword(String password) {
        this.password = password;
    }

    public Integer getDatabase() {
        return database;
    }

    public void setDatabase(Integer database) {
        this.database = database;
    }

    public String getClientName() {
        return clientName;
    }

    public void setClientName(String clientName) {
        this.clientName = clientName;
    }

    public Duration getTimeout() {
        return timeout;
    }

    public void setTimeout(Duration timeout) {
        this.timeout = timeout;
    }

    public Duration getConnectTimeout() {
        return connectTimeout;
    }

    public void setConnectTimeout(Duration connectTimeout) {
        this.connectTimeout = connectTimeout;
    }

    public Ssl getSsl() {
        return ssl;
    }

    public Sentinel getSentinel() {
        return sentinel;
    }

    public Cluster getCluster() {
        return cluster;
    }

    /** TLS settings. */
    public static class Ssl {

        /** Whether to connect over TLS. Default: true when a bundle is set, otherwise false. */
        private Boolean enabled;

        /** Name of the SSL bundle (spring.ssl.bundle.*) whose trust and key material the TLS connection uses; without one, TLS trusts the JVM's default trust store. */
        private String bundle;

        public Boolean getEnabled() {
            return enabled;
        }

        public void setEnabled(Boolean enabled) {
            this.enabled = enabled;
        }

        public String getBundle() {
            return bundle;
        }

        public void setBundle(String bundle) {
            this.bundle = bundle;
        }

        /** Whether the connection is TLS: as set, else when a bundle is named (as Spring Boot decides for spring.data.redis.ssl). */
        boolean isOn() {
            return enabled != null ? enabled : bundle != null && !bundle.isBlank();
        }
    }

    /** Redis Sentinel settings. */
    public static class Sentinel {

        /** Name of the Redis server (master) the Sentinels watch. */
        private String master;

        /** Sentinels, as host:port pairs. */
        private List<String> nodes = new ArrayList<>();

        /** Login username of the Sentinels. */
        private String username;

        /** Login password of the Sentinels. */
        private String password;

        public String getMaster() {
            return master;
        }

        public void setMaster(String master) {
            this.master = master;
        }

        public List<String> getNodes() {
            return nodes;
        }

        public void setNodes(List<String> nodes) {
            this.nodes = nodes;
        }

        public String getUsername() {
            return username;
        }

        public void setUsername(String username) {
            this.username = username;
        }

        public String getPassword() {
            return password;
        }

        public void setPassword(String password) {
            this.password = password;
        }
    }

    /** Redis Cluster settings. */
    public static class Cluster {

        /** Cluster nodes to bootstrap from, as host:port pairs; at least one. */
        private List<String> nodes = new ArrayList<>();

        /** Most redirects to follow when running a command. Default: 5. */
        private Integer maxRedirects;

        public List<String> getNodes() {
            return nodes;
        }

        public void setNodes(List<String> nodes) {
            this.nodes = nodes;
        }

        public Integer getMaxRedirects() {
            return maxRedirects;
        }

        public void setMaxRedirects(Integer maxRedirects) {
            this.maxRedirects = maxRedirects;
        }
    }
}
