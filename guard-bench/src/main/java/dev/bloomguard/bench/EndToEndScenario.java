package dev.bloomguard.bench;

import static dev.bloomguard.bench.BenchSupport.log;

import java.util.List;

/** The "End to end: the demo under a request mix" section, on the demo's jar with the guard off, then on. */
record EndToEndScenario(SuiteSettings settings, Report report) {

    void run() throws Exception {
        log("End to end on the demo");
        DemoEndToEnd endToEnd = new DemoEndToEnd(DemoProcess.JAR);
        long measure = settings.name().equals("full") ? 20_000 : 8_000;
        DemoEndToEnd.Run off = endToEnd.run(false, 8, 3_000, measure);
        DemoEndToEnd.Run on = endToEnd.run(true, 8, 3_000, measure);
        report.append("## End to end: the demo under a request mix\n\n")
                .append("`GET /users/{id}` from 8 client threads, half the ids present (1..1,000,000), half absent;")
                .append(" the demo's own jar with its embedded Redis and H2 database of 1,000,000 users, started with")
                .append(" `--bloom-guard.enabled=false` and then `true`; ").append(measure / 1000)
                .append(" s measured after 3 s of warmup. Client and server share the 2 cores.\n\n")
                .append("| guard | requests/s | requests | database queries | queries per request | database queries avoided |\n")
                .append("|---|---|---|---|---|---|\n");
        for (DemoEndToEnd.Run run : List.of(off, on)) {
            double avoided = 1 - (double) run.databaseQueries() / run.requests();
            report.append(String.format("| %s | %,.0f | %,d | %,d | %.3f | %.1f%% |%n", run.guarded() ? "on" : "off",
                    run.requestsPerSecond(), run.requests(), run.databaseQueries(), run.queriesPerRequest(),
                    100 * avoided));
        }
        report.append(String.format("%nWith the guard on, requests/s is %.2f× the unguarded figure.%n%n",
                on.requestsPerSecond() / off.requestsPerSecond()))
                .append("Requests are counted by the clients and queries by the demo between the same two `/stats`")
                .append(" reads, so a few requests in flight at either end make the unguarded share differ from 0% by")
                .append(" a hair. Requests/s barely moves here because the demo's database is H2 in the same JVM: a")
                .append(" primary-key lookup there costs about what the Redis check costs, and clients, server, Redis")
                .append(" and H2 share 2 cores. What the guard buys shows in the queries: every blocked request is one")
                .append(" the database never sees, which is what matters when the database is the shared, slow part.\n\n");
    }
}
