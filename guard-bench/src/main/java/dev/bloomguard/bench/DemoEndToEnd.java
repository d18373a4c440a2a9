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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.bloomguard.embedded.RedisServer;

/**
 * The demo application under a request mix of present and absent user ids, with the guard on
 * and off: requests per second, and how many requests reached the database. Runs the demo's
 * own jar as a separate process, as a user would, with its embedded Redis and H2 database.
 */
final class DemoEndToEnd {

    /** One run of the demo. */
    record Run(boolean guarded, double requestsPerSecond, long requests, long databaseQueries, long blocked) {

        double queriesPerRequest() {
            return (double) databaseQueries / requests;
        }
    }

    private static final Pattern QUERIES = Pattern.compile("\"databaseQueries\":(\\d+)");
    private static final Pattern BLOCKED = Pattern.compile("\"blocked\":(\\d+)");

    private final Path jar;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    DemoEndToEnd(Path jar) {
        this.jar = jar;
    }

    Run run(boolean guarded, int threads, long warmupMillis, long measureMillis) throws Exception {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("No demo jar at " + jar + "; build it with -pl demo-app,guard-bench -am");
        }
        int port = RedisServer.freePort();
        Path log = Files.createTempFile("bench-demo-", ".log");
        Process demo = new ProcessBuilder("java", "-Xmx2g", "-jar", jar.toString(), "--server.port=" + port,
                "--bloom-guard.enabled=" + guarded)
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            String base = "http://127.0.0.1:" + port;
            awaitUp(demo, base + "/stats", log);
            long queriesBefore = number(QUERIES, get(base + "/stats"));
            AtomicBoolean measuring = new AtomicBoolean();
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicLong requests = new AtomicLong();
            List<Thread> clients = new ArrayList<>();
            List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
            AtomicLong warmQueries = new AtomicLong(-1);
            for (int t = 0; t < threads; t++) {
                long seed = t * 7919L;
                Thread client = new Thread(() -> {
                    long sequence = seed;
                    try {
                        while (running.get()) {
                            long slot = Math.floorMod(++sequence * 0x9E3779B97F4A7C15L, 1_000_000L) + 1;
                            long id = (sequence & 1) == 0 ? slot : 2_000_000 + slot;
                            int status = http.send(HttpRequest.newBuilder(URI.create(base + "/users/" + id)).build(),
                                    HttpResponse.BodyHandlers.discarding()).statusCode();
                            if (status != 200 && status != 404) {
                                throw new IllegalStateException("GET /users/" + id + " answered " + status);
                            }
                            if (measuring.get()) {
                                requests.incrementAndGet();
                            }
                        }
                    }
                    catch (Throwable ex) {
                        failures.add(ex);
                    }
                }, "demo-client-" + t);
                client.setDaemon(true);
                client.start();
                clients.add(client);
            }
            Thread.sleep(warmupMillis);
            warmQueries.set(number(QUERIES, get(base + "/stats")));
            measuring.set(true);
            long started = System.nanoTime();
            Thread.sleep(measureMillis);
            measuring.set(false);
            double seconds = (System.nanoTime() - started) / 1e9;
            String stats = get(base + "/stats");
            running.set(false);
            for (Thread client : clients) {
                client.join(5_000);
            }
            if (!failures.isEmpty()) {
                throw new IllegalStateException("demo requests failed", failures.get(0));
            }
            long queries = number(QUERIES, stats) - warmQueries.get();
            long blocked = guarded ? number(BLOCKED, stats) : 0;
            if (queriesBefore < 0) {
                throw new IllegalStateException("no query count in /stats");
            }
            return new Run(guarded, requests.get() / seconds, requests.get(), queries, blocked);
        }
        finally {
            demo.destroy();
            demo.waitFor();
        }
    }

    private void awaitUp(Process demo, String url, Path log) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (System.nanoTime() < deadline) {
            if (!demo.isAlive()) {
                throw new IllegalStateException("the demo exited; its log: " + Files.readString(log));
            }
            try {
                get(url);
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

    private static long number(Pattern pattern, String json) {
        Matcher matcher = pattern.matcher(json);
        return matcher.find() ? Long.parseLong(matcher.group(1)) : -1;
    }
}
