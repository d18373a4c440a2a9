package dev.bloomguard.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.bloomguard.embedded.RedisServer;

/**
 * The demo application's own jar, started as a separate process as a user would start it (with
 * its embedded Redis and H2 database), on a free port, with the given command-line properties.
 * Closing it stops the process.
 */
final class DemoProcess implements AutoCloseable {

    /** Where {@code -pl demo-app,guard-bench -am} leaves the jar, relative to the project directory. */
    static final Path JAR = Path.of("demo-app/target/demo-app-0.1.0-SNAPSHOT.jar");

    private static final Pattern QUERIES = Pattern.compile("\"databaseQueries\":(\\d+)");
    private static final Pattern BLOCKED = Pattern.compile("\"blocked\":(\\d+)");

    private final Process process;
    private final String base;
    private final HttpClient http;

    private DemoProcess(Process process, String base, HttpClient http) {
        this.process = process;
        this.base = base;
        this.http = http;
    }

    /**
     * Starts the demo and returns once {@code /stats} answers (the filter's blocking warmup is
     * done by then).
     *
     * @param properties Spring Boot command-line arguments, e.g. {@code --bloom-guard.enabled=false}
     */
    static DemoProcess start(Path jar, HttpClient http, List<String> properties) throws Exception {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("No demo jar at " + jar + "; build it with -pl demo-app,guard-bench -am");
        }
        int port = RedisServer.freePort();
        Path log = Files.createTempFile("bench-demo-", ".log");
        List<String> command = new ArrayList<>(List.of("java", "-Xmx2g", "-jar", jar.toString(), "--server.port=" + port));
        command.addAll(properties);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        DemoProcess demo = new DemoProcess(process, "http://127.0.0.1:" + port, http);
        try {
            demo.awaitUp(log);
        }
        catch (Exception | Error ex) {
            demo.close();
            throw ex;
        }
        return demo;
    }

    /** {@code http://127.0.0.1:<port>}. */
    String base() {
        return base;
    }

    /** Statements the demo sent to its database since it started ({@code /stats}). */
    long databaseQueries() throws IOException, InterruptedException {
        return number(QUERIES, stats(), "databaseQueries");
    }

    /** Lookups the filter rejected since the demo started ({@code /stats}); 0 with the guard off. */
    long blocked() throws IOException, InterruptedException {
        Matcher matcher = BLOCKED.matcher(stats());
        return matcher.find() ? Long.parseLong(matcher.group(1)) : 0;
    }

    /** The status of {@code GET path}. */
    int status(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(base + path)).build(), HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    private String stats() throws IOException, InterruptedException {
        return get(base + "/stats");
    }

    private void awaitUp(Path log) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the demo exited; its log: " + Files.readString(log));
            }
            try {
                get(base + "/stats");
                return;
            }
            catch (IOException notYet) {
                Thread.sleep(250);
            }
        }
        throw new IllegalStateException("the demo did not start within 3 minutes; its log: " + Files.readString(log));
    }

    private String get(String url) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    private static long number(Pattern pattern, String json, String field) {
        Matcher matcher = pattern.matcher(json);
        if (!matcher.find()) {
            throw new IllegalStateException("no " + field + " in /stats: " + json);
        }
        return Long.parseLong(matcher.group(1));
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        process.waitFor();
    }
}
