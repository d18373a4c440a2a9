package dev.bloomguard.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

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

    private final Path jar;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    DemoEndToEnd(Path jar) {
        this.jar = jar;
    }

    Run run(boolean guarded, int threads, long warmupMillis, long measureMillis) throws Exception {
        try (DemoProcess demo = DemoProcess.start(jar, http, List.of("--bloom-guard.enabled=" + guarded))) {
            String base = demo.base();
            AtomicBoolean measuring = new AtomicBoolean();
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicLong requests = new AtomicLong();
            List<Thread> clients = new ArrayList<>();
            List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
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
            long warmQueries = demo.databaseQueries();
            measuring.set(true);
            long started = System.nanoTime();
            Thread.sleep(measureMillis);
            measuring.set(false);
            double seconds = (System.nanoTime() - started) / 1e9;
            long queries = demo.databaseQueries() - warmQueries;
            long blocked = guarded ? demo.blocked() : 0;
            running.set(false);
            for (Thread client : clients) {
                client.join(5_000);
            }
            if (!failures.isEmpty()) {
                throw new IllegalStateException("demo requests failed", failures.get(0));
            }
            return new Run(guarded, requests.get() / seconds, requests.get(), queries, blocked);
        }
    }
}
