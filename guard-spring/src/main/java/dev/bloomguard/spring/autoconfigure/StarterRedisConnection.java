package dev.bloomguard.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.ssl.SslBundle;

import dev.bloomguard.core.redis.LettuceConnections;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;

/**
 * A Lettuce client the starter makes from {@link BloomGuardRedisProperties} and owns: closing
 * its {@link #connections()} shuts the client down too, as the context closes. Settings are read
 * as Spring Boot reads {@code spring.data.redis.*} (a URL overrides host, port, credentials and
 * database; cluster nodes make a cluster client; a Sentinel master a Sentinel one), and a
 * setting that cannot work fails here, at startup, naming the property. TLS trusts the named SSL
 * bundle when there is one, the JVM's trust store otherwise.
 *
 * @param connections the client's connections, which shut it down when closed
 * @param description where it connects, without credentials, for the startup log
 */
record StarterRedisConnection(LettuceConnections connections, String description) {

    static final String DEFAULT_CLIENT_NAME = "bloom-guard";

    /**
     * @param prefix where the settings came from ({@code bloom-guard.redis}, {@code spring.data.redis}
     *        or a connection-details bean), for the messages
     * @param sslBundle the SSL bundle whose trust and key material TLS uses, or null for the JVM's
     *        defaults; used only when the settings turn TLS on
     * @throws BloomGuardRedisException when a setting cannot work
     */
    static StarterRedisConnection open(BloomGuardRedisProperties settings, String prefix, SslBundle sslBundle) {
        SslOptions ssl = settings.getSsl().isOn() && sslBundle != null ? sslOptions(sslBundle) : null;
        Duration timeout = positive(settings.getTimeout(), prefix + ".timeout", Duration.ofSeconds(60));
        Duration connectTimeout = positive(settings.getConnectTimeout(), prefix + ".connect-timeout",
                Duration.ofSeconds(10));
        // Netty takes it in whole milliseconds, where 0 means no timeout at all.
        if (connectTimeout.compareTo(Duration.ofMillis(1)) < 0) {
            throw invalid(prefix + ".connect-timeout (" + connectTimeout + ") must be at least 1 ms",
                    "Set a duration of 1 ms or more, e.g. 2s.");
        }
        SocketOptions socket = SocketOptions.builder().connectTimeout(connectTimeout).build();
        List<String> clusterNodes = settings.getCluster().getNodes();
        BloomGuardRedisProperties.Sentinel sentinel = settings.getSentinel();
        boolean isSentinel = notBlank(sentinel.getMaster()) || !sentinel.getNodes().isEmpty();
        if (!clusterNodes.isEmpty() && isSentinel) {
            throw invalid(prefix + ".cluster.nodes and " + prefix + ".sentinel.* are both set; a connection is to a"
                    + " Redis Cluster or through Sentinels, not both", "Keep the settings of the Redis you use.");
        }
        if (!clusterNodes.isEmpty()) {
            if (settings.getDatabase() != null && settings.getDatabase() != 0) {
                throw invalid(prefix + ".database is " + settings.getDatabase() + ", but a Redis Cluster has only"
                        + " database 0", "Remove " + prefix + ".database.");
            }
            List<RedisURI> nodes = new ArrayList<>();
            for (String node : clusterNodes) {
                RedisURI.Builder uri = node(prefix + ".cluster.nodes", node);
                nodes.add(common(uri, settings, prefix, timeout).build());
            }
            int maxRedirects = settings.getCluster().getMaxRedirects() == null ? 5 : settings.getCluster().getMaxRedirects();
            if (maxRedirects < 0) {
                throw invalid(prefix + ".cluster.max-redirects (" + maxRedirects + ") must not be negative",
                        "Set it to 0 or more, or remove it for the default of 5.");
            }
            RedisClusterClient client = RedisClusterClient.create(nodes);
            ClusterClientOptions.Builder options = ClusterClientOptions.builder().socketOptions(socket)
                    .maxRedirects(maxRedirects)
                    .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder().enableAllAdaptiveRefreshTriggers().build());
            client.setOptions((ssl == null ? options : options.sslOptions(ssl)).build());
            return new StarterRedisConnection(LettuceConnections.owning(client), "Redis Cluster " + clusterNodes);
        }
        RedisURI uri = isSentinel ? sentinel(settings, prefix, timeout) : standalone(settings, prefix, timeout);
        if (prefix.equals(BloomGuardRedisConfiguration.OWN) && !isSentinel && !notBlank(settings.getUrl())
                && settings.getHost() == null) {
            // A lone timeout or client name would otherwise connect to localhost:6379, away from the Redis
            // that the application and the other instances use.
            throw invalid(prefix + ".* settings are set but none names a server (" + prefix + ".url, .host,"
                    + " .sentinel.master or .cluster.nodes); any " + prefix + ".* setting makes bloom-guard connect on"
                    + " its own, and without a server it would connect to localhost:6379",
                    "Set " + prefix + ".host (or .url, .sentinel.*, .cluster.nodes) to the Redis the filters live in,"
                            + " or remove the " + prefix + ".* settings to share the application's connection (tune"
                            + " that one under spring.data.redis.*).");
        }
        RedisClient client = RedisClient.create(uri);
        ClientOptions.Builder options = ClientOptions.builder().socketOptions(socket);
        client.setOptions((ssl == null ? options : options.sslOptions(ssl)).build());
        String where = !uri.getSentinels().isEmpty() ? "Redis master '" + uri.getSentinelMasterId() + "' through Sentinels "
                + uri.getSentinels().stream().map(node -> node.getHost() + ":" + node.getPort()).toList()
                : "Redis at " + uri.getHost() + ":" + uri.getPort();
        where += uri.isSsl() ? (ssl != null ? " over TLS (the SSL bundle's trust)" : " over TLS") : "";
        return new StarterRedisConnection(LettuceConnections.owning(client), where);
    }

    private static RedisURI standalone(BloomGuardRedisProperties settings, String prefix, Duration timeout) {
        if (notBlank(settings.getUrl())) {
            RedisURI uri;
            try {
                uri = RedisURI.create(settings.getUrl());
            }
            catch (RuntimeException ex) {
                throw invalid(prefix + ".url is not a Redis URL (" + ex.getMessage() + ")",
                        "Write it as redis://[[username]:password@]host[:port][/database], rediss://... for TLS.", ex);
            }
            if (settings.getSsl().isOn()) {
                uri.setSsl(true);
            }
            uri.setTimeout(timeout);
            uri.setClientName(clientName(settings));
            return uri;
        }
        String host = notBlank(settings.getHost()) ? settings.getHost() : "localhost";
        int port = settings.getPort() == null ? 6379 : port(prefix + ".port", settings.getPort());
        RedisURI.Builder uri = RedisURI.Builder.redis(host, port).withDatabase(database(settings, prefix));
        return common(uri, settings, prefix, timeout).build();
    }

    private static RedisURI sentinel(BloomGuardRedisProperties settings, String prefix, Duration timeout) {
        BloomGuardRedisProperties.Sentinel sentinel = settings.getSentinel();
        if (!notBlank(sentinel.getMaster())) {
            throw invalid(prefix + ".sentinel.nodes is set but " + prefix + ".sentinel.master is not",
                    "Set " + prefix + ".sentinel.master to the name the Sentinels know the master by.");
        }
        if (sentinel.getNodes().isEmpty()) {
            throw invalid(prefix + ".sentinel.master is set but " + prefix + ".sentinel.nodes is empty",
                    "List the Sentinels in " + prefix + ".sentinel.nodes as host:port.");
        }
        RedisURI.Builder uri = RedisURI.builder().withSentinelMasterId(sentinel.getMaster())
                .withDatabase(database(settings, prefix));
        for (String node : sentinel.getNodes()) {
            RedisURI.Builder sentinelNode = node(prefix + ".sentinel.nodes", node).withTimeout(timeout);
            if (sentinel.getPassword() != null) {
                sentinelNode = sentinel.getUsername() != null
                        ? sentinelNode.withAuthentication(sentinel.getUsername(), sentinel.getPassword())
                        : sentinelNode.withPassword((CharSequence) sentinel.getPassword());
            }
            uri.withSentinel(sentinelNode.build());
        }
        return common(uri, settings, prefix, timeout).build();
    }

    /** Credentials, TLS, timeout and client name, the same on every kind of connection. */
    private static RedisURI.Builder common(RedisURI.Builder uri, BloomGuardRedisProperties settings, String prefix,
            Duration timeout) {
        if (notBlank(settings.getUrl())) {
            throw invalid(prefix + ".url is set together with " + prefix + ".cluster.nodes or " + prefix
                    + ".sentinel.*; a URL names one server", "Remove " + prefix + ".url, or the cluster or Sentinel settings.");
        }
        if (settings.getPassword() != null) {
            uri = settings.getUsername() != null ? uri.withAuthentication(settings.getUsername(), settings.getPassword())
                    : uri.withPassword((CharSequence) settings.getPassword());
        }
        else if (settings.getUsername() != null) {
            throw invalid(prefix + ".username is set without " + prefix + ".password",
                    "Set " + prefix + ".password for user '" + settings.getUsername() + "'.");
        }
        return uri.withSsl(settings.getSsl().isOn()).withTimeout(timeout)
                .withClientName(clientName(settings));
    }

    /**
     * Lettuce's TLS options from a Spring Boot SSL bundle, as Boot's own Lettuce configuration
     * makes them: the bundle's key and trust managers, and its ciphers and protocols when it names any.
     */
    static SslOptions sslOptions(SslBundle bundle) {
        SslOptions.Builder options = SslOptions.builder().keyManager(bundle.getManagers().getKeyManagerFactory())
                .trustManager(bundle.getManagers().getTrustManagerFactory());
        org.springframework.boot.ssl.SslOptions bundleOptions = bundle.getOptions();
        if (bundleOptions.getCiphers() != null) {
            options.cipherSuites(bundleOptions.getCiphers());
        }
        if (bundleOptions.getEnabledProtocols() != null) {
            options.protocols(bundleOptions.getEnabledProtocols());
        }
        return options.build();
    }

    private static RedisURI.Builder node(String property, String node) {
        int colon = node == null ? -1 : node.lastIndexOf(':');
        if (colon <= 0 || colon == node.length() - 1) {
            throw invalid(property + " has '" + node + "', which is not host:port", "Write each node as host:port.");
        }
        int port;
        try {
            port = Integer.parseInt(node.substring(colon + 1).trim());
        }
        catch (NumberFormatException ex) {
            throw invalid(property + " has '" + node + "', whose port is not a number", "Write each node as host:port.");
        }
        String host = node.substring(0, colon).trim();
        if (host.isEmpty()) {
            throw invalid(property + " has '" + node + "', which names no host", "Write each node as host:port.");
        }
        return RedisURI.Builder.redis(host, port(property, port));
    }

    private static int port(String property, int port) {
        if (port < 1 || port > 65_535) {
            throw invalid(property + " (" + port + ") is not a TCP port", "Use a port from 1 to 65535.");
        }
        return port;
    }

    private static int database(BloomGuardRedisProperties settings, String prefix) {
        Integer database = settings.getDatabase();
        if (database != null && database < 0) {
            throw invalid(prefix + ".database (" + database + ") must not be negative", "Use 0 or more.");
        }
        return database == null ? 0 : database;
    }

    private static Duration positive(Duration value, String property, Duration fallback) {
        if (value == null) {
            return fallback;
        }
        if (value.isNegative() || value.isZero()) {
            throw invalid(property + " (" + value + ") must be positive", "Set a positive duration, e.g. 2s.");
        }
        return value;
    }

    private static String clientName(BloomGuardRedisProperties settings) {
        return notBlank(settings.getClientName()) ? settings.getClientName() : DEFAULT_CLIENT_NAME;
    }

    private static boolean notBlank(String value) {
        return value != null && !value.isBlank();
    }

    private static BloomGuardRedisException invalid(String description, String action) {
        return invalid(description, action, null);
    }

    private static BloomGuardRedisException invalid(String description, String action, Throwable cause) {
        return new BloomGuardRedisException("bloom-guard cannot connect to Redis: " + description, action, cause);
    }
}
