package dev.bloomguard.embedded;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A real Redis Cluster of {@code masters} {@code redis-server} processes on loopback ports,
 * slots split evenly, for tests that must see keys spread over nodes. Slots are assigned with
 * {@code CLUSTER ADDSLOTS} (the Redis 6.2 binary in embedded-redis has no {@code ADDSLOTSRANGE}).
 */
public final class RedisCluster implements AutoCloseable {

    private static final int SLOTS = 16_384;

    private final List<RedisServer> nodes;

    private RedisCluster(List<RedisServer> nodes) {
        this.nodes = nodes;
    }

    public static RedisCluster start(int masters) {
        List<RedisServer> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < masters; i++) {
                int port = RedisServer.freePort();
                nodes.add(RedisServer.start(port, "--cluster-enabled", "yes", "--cluster-config-file",
                        "nodes-" + port + ".conf", "--cluster-node-timeout", "5000"));
            }
            for (int i = 0; i < masters; i++) {
                int from = SLOTS * i / masters;
                int to = SLOTS * (i + 1) / masters;
                List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
                for (int slot = from; slot < to; slot++) {
                    command.add(Integer.toString(slot));
                }
                expectOk(nodes.get(i).port(), command);
            }
            for (int i = 1; i < masters; i++) {
                expectOk(nodes.get(0).port(), List.of("CLUSTER", "MEET", "127.0.0.1", Integer.toString(nodes.get(i).port())));
            }
            awaitClusterOk(nodes);
            return new RedisCluster(nodes);
        }
        catch (IOException | RuntimeException ex) {
            nodes.forEach(RedisServer::close);
            throw new IllegalStateException("Could not start a Redis Cluster of " + masters + " nodes: " + ex.getMessage(), ex);
        }
    }

    /** {@code host:port} of every node, for a cluster client's seed list. */
    public List<String> nodeAddresses() {
        return nodes.stream().map(node -> node.host() + ":" + node.port()).toList();
    }

    public List<RedisServer> nodes() {
        return nodes;
    }

    /** Waits until every node reports {@code cluster_state:ok}, e.g. after a node was restarted. */
    public void awaitHealthy() {
        try {
            awaitClusterOk(nodes);
        }
        catch (IOException ex) {
            throw new IllegalStateException(ex.getMessage(), ex);
        }
    }

    /** Closes every node: see {@link RedisServer#close()}. */
    @Override
    public void close() {
        nodes.forEach(RedisServer::close);
    }

    private static void awaitClusterOk(List<RedisServer> nodes) throws IOException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline) {
            boolean ok = true;
            for (RedisServer node : nodes) {
                String info = command(node.port(), List.of("CLUSTER", "INFO"));
                ok &= info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:" + nodes.size());
            }
            if (ok) {
                return;
            }
            try {
                Thread.sleep(100);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while the cluster formed", ex);
            }
        }
        throw new IOException("the cluster did not reach cluster_state:ok within 30 s");
    }

    private static void expectOk(int port, List<String> command) throws IOException {
        String reply = command(port, command);
        if (!reply.equals("OK")) {
            throw new IOException(String.join(" ", command.subList(0, 2)) + " on port " + port + " answered " + reply);
        }
    }

    /** Sends one command in RESP and returns a simple-string, error or bulk-string reply as text. */
    private static String command(int port, List<String> command) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
            socket.setSoTimeout(5_000);
            StringBuilder request = new StringBuilder("*").append(command.size()).append("\r\n");
            for (String argument : command) {
                request.append('$').append(argument.getBytes(StandardCharsets.UTF_8).length).append("\r\n")
                        .append(argument).append("\r\n");
            }
            OutputStream out = socket.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = new BufferedInputStream(socket.getInputStream());
            String line = readLine(in);
            switch (line.charAt(0)) {
                case '+':
                    return line.substring(1);
                case '-':
                    throw new IOException("Redis answered " + line.substring(1));
                case '$':
                    int length = Integer.parseInt(line.substring(1));
                    byte[] body = in.readNBytes(length);
                    return new String(body, StandardCharsets.UTF_8);
                default:
                    return line;
            }
        }
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int previous = -1;
        int current;
        while ((current = in.read()) != -1) {
            if (previous == '\r' && current == '\n') {
                line.setLength(line.length() - 1);
                return line.toString();
            }
            line.append((char) current);
            previous = current;
        }
        throw new IOException("connection closed before a full reply");
    }
}
