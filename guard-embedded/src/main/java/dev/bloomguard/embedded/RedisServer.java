package dev.bloomguard.embedded;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real {@code redis-server} process on a loopback port, for tests and the demo.
 *
 * <p>The binary is the one on {@code PATH} when there is one, else the Redis 6.2 binary
 * shipped inside {@code com.github.codemonstur:embedded-redis} ({@link RedisBinary}). Nothing is
 * saved on its own: a restarted server comes back empty, like a production Redis without
 * persistence, unless a test asked for a {@code SAVE}, whose snapshot it then loads (as a Redis
 * restarted from an older RDB file would). Snapshots and logs live in a temporary directory of the
 * server's own, deleted by {@link #close()}. If no binary can be started this fails loudly; it
 * never pretends a server is there.
 */
public final class RedisServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RedisServer.class);

    private static final Duration STARTUP_WAIT = Duration.ofSeconds(20);

    private final Path binary;
    private final int port;
    private final List<String> extraArguments;
    private final Path logFile;
    private final Path dataDirectory;
    private volatile Path sentinelConfig;
    private volatile Process process;

    private RedisServer(Path binary, int port, List<String> extraArguments) throws IOException {
        this.binary = binary;
        this.port = port;
        this.extraArguments = List.copyOf(extraArguments);
        this.logFile = Files.createTempFile("bloomguard-redis-" + port + "-", ".log");
        this.dataDirectory = Files.createTempDirectory("bloomguard-redis-" + port + "-");
        // One hook per server, however often it restarts: it kills whichever process runs at JVM exit.
        Runtime.getRuntime().addShutdownHook(new Thread(this::destroyAtExit, "redis-server-" + port + "-shutdown"));
    }

    /** Starts a server on a free loopback port. */
    public static RedisServer start(String... extraArguments) {
        return start(freePort(), extraArguments);
    }

    /** Starts a server on the given port; extra arguments are passed to {@code redis-server} as given. */
    public static RedisServer start(int port, String... extraArguments) {
        try {
            RedisServer server = new RedisServer(RedisBinary.locate(), port, List.of(extraArguments));
            server.launch();
            return server;
        }
        catch (IOException ex) {
            throw new IllegalStateException("Could not start redis-server on port " + port + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * Starts a Sentinel (the same binary in sentinel mode) on a free port, watching the master
     * at {@code masterPort} under the name {@code masterName}.
     */
    public static RedisServer startSentinel(String masterName, int masterPort) {
        int port = freePort();
        try {
            RedisServer sentinel = new RedisServer(RedisBinary.locate(), port, List.of());
            Path config = sentinel.dataDirectory.resolve("sentinel.conf");
            Files.writeString(config, "sentinel monitor " + masterName + " 127.0.0.1 " + masterPort + " 1\n"
                    + "sentinel down-after-milliseconds " + masterName + " 5000\n");
            sentinel.sentinelConfig = config;
            sentinel.launch();
            return sentinel;
        }
        catch (IOException ex) {
            throw new IllegalStateException("Could not start a Sentinel on port " + port + ": " + ex.getMessage(), ex);
        }
    }

    public String host() {
        return "127.0.0.1";
    }

    public int port() {
        return port;
    }

    public boolean isRunning() {
        Process current = process;
        return current != null && current.isAlive();
    }

    /** Kills the process; its data is gone. */
    public void stop() {
        Process current = process;
        process = null;
        if (current == null) {
            return;
        }
        current.destroy();
        try {
            if (!current.waitFor(10, TimeUnit.SECONDS)) {
                current.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        catch (InterruptedException ex) {
            // No longer in the field, so the shutdown hook would not see it: make sure it dies.
            current.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** Run by the JVM shutdown hook: kills the current process, if any. */
    private void destroyAtExit() {
        Process current = process;
        if (current != null) {
            current.destroyForcibly();
        }
    }

    /** Stops the server and starts an empty one on the same port. */
    public void restart() {
        stop();
        try {
            launch();
        }
        catch (IOException ex) {
            throw new IllegalStateException("Could not restart redis-server on port " + port, ex);
        }
    }

    /**
     * Stops the server for good and deletes its log and data directory (a CI run starts hundreds
     * of servers, and a dump written by {@code SAVE} or {@code DEBUG RELOAD} is megabytes): unlike
     * after {@link #stop()}, it cannot be {@link #restart() restarted}.
     */
    @Override
    public void close() {
        stop();
        try {
            deleteRecursively(dataDirectory);
            Files.deleteIfExists(logFile);
        }
        catch (IOException ex) {
            log.warn("Could not delete {} or {}: {}", dataDirectory, logFile, ex.getMessage());
        }
    }

    private static void deleteRecursively(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    private void launch() throws IOException {
        List<String> command = new ArrayList<>();
        command.add(binary.toString());
        if (sentinelConfig != null) {
            command.addAll(List.of(sentinelConfig.toString(), "--sentinel", "--port", Integer.toString(port), "--bind",
                    "127.0.0.1", "--protected-mode", "no", "--dir", dataDirectory.toString()));
        }
        else {
            command.addAll(List.of("--port", Integer.toString(port), "--bind", "127.0.0.1",
                    "--save", "", "--appendonly", "no", "--protected-mode", "no", "--dir", dataDirectory.toString()));
            if (RedisVersion.major(binary) >= 7) {
                // Redis 7 refuses DEBUG (tests use POPULATE and SLEEP) unless told; 6.2 rejects the option.
                command.addAll(List.of("--enable-debug-command", "local"));
            }
        }
        command.addAll(extraArguments);
        Process started = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                .start();
        process = started;
        awaitPong(started);
        log.info("Started {} on 127.0.0.1:{}", binary, port);
    }

    private void awaitPong(Process started) throws IOException {
        long deadline = System.nanoTime() + STARTUP_WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!started.isAlive()) {
                throw new IOException("redis-server exited with " + started.exitValue() + "; its log says:\n" + logTail());
            }
            if (answersPing()) {
                return;
            }
            sleep(20);
        }
        started.destroyForcibly();
        throw new IOException("redis-server did not answer PING within " + STARTUP_WAIT + "; its log says:\n" + logTail());
    }

    private boolean answersPing() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            socket.setSoTimeout(500);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            byte[] reply = new byte[7];
            int read = socket.getInputStream().read(reply);
            return read > 0 && new String(reply, 0, read, StandardCharsets.US_ASCII).startsWith("+PONG");
        }
        catch (IOException ex) {
            return false;
        }
    }

    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(logFile);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        }
        catch (IOException ex) {
            return "(log unreadable: " + ex.getMessage() + ")";
        }
    }

    /** A port that was free a moment ago on the loopback interface. */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        }
        catch (IOException ex) {
            throw new IllegalStateException("No free port", ex);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for redis-server", ex);
        }
    }
}
