package dev.bloomguard.embedded;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real {@code redis-server} process on a loopback port, for tests and the demo.
 *
 * <p>The binary is the one on {@code PATH} when there is one, else the Redis 6.2 binary
 * shipped inside {@code com.github.codemonstur:embedded-redis}. Nothing is persisted: a
 * restarted server comes back empty, exactly like a production Redis without persistence, and
 * any RDB file Redis writes anyway (replication, {@code DEBUG RELOAD}) goes to a temporary directory.
 * If no binary can be started this fails loudly; it never pretends a server is there.
 */
public final class RedisServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RedisServer.class);

    private static final String SHIPPED_LINUX_AMD64 = "/redis-server-6.2.6-v5-linux-amd64";
    private static final String SHIPPED_LINUX_ARM64 = "/redis-server-6.2.7-linux-arm64";
    private static final String SHIPPED_DARWIN_AMD64 = "/redis-server-6.2.6-v5-darwin-amd64";
    private static final String SHIPPED_DARWIN_ARM64 = "/redis-server-6.2.6-v5-darwin-arm64";
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
            RedisServer server = new RedisServer(locateBinary(), port, List.of(extraArguments));
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
            RedisServer sentinel = new RedisServer(locateBinary(), port, List.of());
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

    @Override
    public void close() {
        stop();
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

    static Path locateBinary() throws IOException {
        String override = System.getenv("BLOOMGUARD_REDIS_SERVER");
        if (override != null && !override.isBlank()) {
            return Path.of(override);
        }
        String path = System.getenv("PATH");
        if (path != null) {
            for (String directory : path.split(File.pathSeparator)) {
                Path candidate = Path.of(directory, "redis-server");
                if (Files.isExecutable(candidate)) {
                    return candidate;
                }
            }
        }
        return extractShippedBinary();
    }

    private static Path extractShippedBinary() throws IOException {
        String resource = shippedResourceName();
        Path target = Path.of(System.getProperty("java.io.tmpdir"), "bloomguard" + resource);
        if (Files.isExecutable(target)) {
            return target;
        }
        try (InputStream in = RedisServer.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("No redis-server on PATH and " + resource
                        + " is not on the classpath (add com.github.codemonstur:embedded-redis)");
            }
            Files.createDirectories(target.getParent());
            Path temporary = Files.createTempFile(target.getParent(), "redis-server", ".part");
            Files.copy(in, temporary, StandardCopyOption.REPLACE_EXISTING);
            if (!temporary.toFile().setExecutable(true)) {
                throw new IOException("Could not make " + temporary + " executable");
            }
            Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        return target;
    }

    private static String shippedResourceName() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        boolean arm = System.getProperty("os.arch").toLowerCase(Locale.ROOT).contains("aarch64");
        if (os.contains("linux")) {
            return arm ? SHIPPED_LINUX_ARM64 : SHIPPED_LINUX_AMD64;
        }
        if (os.contains("mac")) {
            return arm ? SHIPPED_DARWIN_ARM64 : SHIPPED_DARWIN_AMD64;
        }
        throw new IllegalStateException("No shipped redis-server for " + os + "; put redis-server on PATH");
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
