package dev.bloomguard.testsupport;

import java.util.List;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import dev.bloomguard.embedded.RedisCluster;

/**
 * A real Redis Cluster of its own for one test class:
 * {@code @RegisterExtension static final RedisClusterExtension CLUSTER = new RedisClusterExtension();}
 * (three masters, or as many as the constructor is given), formed before the class's first test
 * and stopped after its last.
 *
 * <p>The one thing to get right: the cluster lives as long as the class, not a test method, so a
 * test that restarts a node or flushes one leaves it so for the tests after it. A test that needs a
 * cluster no other test has touched starts one itself ({@link RedisCluster#start(int)}).
 */
public final class RedisClusterExtension implements BeforeAllCallback, AfterAllCallback {

    private final int masters;
    private RedisCluster cluster;
    private RedisClusterClient client;

    /** A cluster of three masters, the fewest {@code redis-cli --cluster create} accepts. */
    public RedisClusterExtension() {
        this(3);
    }

    /** @param masters how many masters share the slots */
    public RedisClusterExtension(int masters) {
        if (masters < 1) {
            throw new IllegalArgumentException("masters (" + masters + ") must be at least 1");
        }
        this.masters = masters;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        cluster = RedisCluster.start(masters);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (client != null) {
            client.shutdown();
            client = null;
        }
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
    }

    /** @throws IllegalStateException outside the class's tests, before the cluster formed or after it stopped */
    public RedisCluster cluster() {
        if (cluster == null) {
            throw new IllegalStateException("The test class's Redis Cluster is not running: register the extension as a static field");
        }
        return cluster;
    }

    /** {@code host:port} of every node, for a cluster client's seed list or a {@code cluster.nodes} property. */
    public List<String> nodeAddresses() {
        return cluster().nodeAddresses();
    }

    /**
     * A Lettuce cluster client seeded with every node, created on first use and shut down after the
     * class: for the connections a test opens itself to look at what the cluster holds.
     */
    public synchronized RedisClusterClient client() {
        if (client == null) {
            client = RedisClusterClient.create(nodeAddresses().stream().map(address -> RedisURI.create("redis://" + address)).toList());
        }
        return client;
    }
}
