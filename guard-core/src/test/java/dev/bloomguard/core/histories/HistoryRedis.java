package dev.bloomguard.core.histories;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.bloomguard.core.redis.LettuceClients;
import dev.bloomguard.core.redis.LettuceConnections;
import dev.bloomguard.embedded.RedisCluster;
import dev.bloomguard.embedded.RedisServer;
import io.lettuce.core.RedisURI;
import io.lettuce.core.RestoreArgs;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.RedisClusterClient;

/**
 * The Redis a history plays on, as its instances and its operator see it: one redis-server, or a
 * Redis Cluster whose masters each hold some of the filter's shards. The operator's acts (refusing
 * writes, FLUSHALL, a snapshot and a restart from it) reach every node; each key is restored on
 * the node it was dumped from, which still owns its slot.
 */
public final class HistoryRedis implements AutoCloseable {

    private final List<LettuceClients> nodes;
    private final LettuceConnections shared;
    private final RedisClusterClient cluster;
    private final List<Integer> ports;

    private HistoryRedis(List<LettuceClients> nodes, LettuceConnections shared, RedisClusterClient cluster,
            List<Integer> ports) {
        this.nodes = nodes;
        this.shared = shared;
        this.cluster = cluster;
        this.ports = ports;
    }

    /** One redis-server: its client serves the instances and the operator alike. */
    public static HistoryRedis standalone(RedisServer server) {
        LettuceClients client = LettuceClients.standalone(server.port());
        return new HistoryRedis(List.of(client), client, null, List.of(server.port()));
    }

    /** A Redis Cluster: the instances share one cluster client; the operator speaks to each master. */
    public static HistoryRedis cluster(RedisCluster servers) {
        List<Integer> ports = servers.nodes().stream().map(RedisServer::port).toList();
        List<LettuceClients> nodes = new ArrayList<>();
        ports.forEach(port -> nodes.add(LettuceClients.standalone(port)));
        RedisClusterClient client = clusterClient(ports);
        return new HistoryRedis(nodes, LettuceConnections.of(client), client, ports);
    }

    boolean isCluster() {
        return cluster != null;
    }

    /** What the instances' stores are built on, shared by every history. */
    LettuceConnections connections() {
        return shared;
    }

    /** Connections of a process of their own (a loader that dies), to close when it is gone. */
    LettuceConnections connectOwn() {
        return cluster == null ? LettuceClients.standalone(ports.get(0))
                : LettuceConnections.owning(clusterClient(ports));
    }

    private static RedisClusterClient clusterClient(List<Integer> ports) {
        return RedisClusterClient.create(ports.stream().map(port -> RedisURI.create("127.0.0.1", port)).toList());
    }

    void configSet(String parameter, String value) {
        nodes.forEach(node -> node.commands().configSet(parameter, value));
    }

    void flushAll() {
        nodes.forEach(node -> node.commands().flushall());
    }

    /** Every key of every node with its value (DUMP) and time to live, by node. */
    List<Map<byte[], Object[]>> dump() {
        List<Map<byte[], Object[]>> dumped = new ArrayList<>();
        for (LettuceClients node : nodes) {
            RedisCommands<byte[], byte[]> commands = node.commands();
            Map<byte[], Object[]> keys = new LinkedHashMap<>();
            for (byte[] key : commands.keys("*".getBytes())) {
                byte[] value = commands.dump(key);
                if (value != null) {
                    keys.put(key, new Object[] { value, commands.pttl(key) });
                }
            }
            dumped.add(keys);
        }
        return dumped;
    }

    /** Restores {@link #dump()}'s keys, each on its node, replacing what is there. */
    void restore(List<Map<byte[], Object[]>> dumped) {
        for (int node = 0; node < nodes.size(); node++) {
            RedisCommands<byte[], byte[]> commands = nodes.get(node).commands();
            dumped.get(node).forEach((key, value) -> {
                long ttl = (Long) value[1];
                commands.restore(key, (byte[]) value[0], RestoreArgs.Builder.ttl(ttl > 0 ? ttl : 0).replace());
            });
        }
    }

    @Override
    public void close() {
        if (cluster != null) {
            shared.close();
            cluster.shutdown();
        }
        nodes.forEach(LettuceClients::close);
    }
}
