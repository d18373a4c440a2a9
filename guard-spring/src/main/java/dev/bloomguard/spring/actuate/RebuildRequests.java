package dev.bloomguard.spring.actuate;

import static dev.bloomguard.spring.actuate.BloomGuardEndpoint.LOAD_FAILED;
import static dev.bloomguard.spring.actuate.BloomGuardEndpoint.REDIS_FAILED;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

import dev.bloomguard.core.LoadReport;
import dev.bloomguard.core.load.RebuildTurn;
import dev.bloomguard.core.redis.BitmapStoreException;
import dev.bloomguard.spring.BloomFilterRegistry;
import dev.bloomguard.spring.actuate.BloomGuardEndpoint.RebuildDescriptor;
import dev.bloomguard.spring.warmup.FilterWarmer;

/**
 * The endpoint's rebuilds on demand, one per cooldown per filter: for this instance
 * ({@link RebuildCooldown}, which holds while the rebuild runs) and for the fleet
 * ({@link RebuildTurn} in Redis, kept while the rebuild runs; and the filter's load lock, for the
 * loads no endpoint started). A
 * request that finds a load of the filter running anywhere starts nothing, neither now nor
 * queued behind it: a chain of whole-table reads is what this is here to prevent.
 */
final class RebuildRequests {

    private static final Logger log = LoggerFactory.getLogger(BloomGuardEndpoint.class);

    private static final int TOO_MANY_REQUESTS = 429;

    private static final int SERVICE_UNAVAILABLE = 503;

    private final BloomFilterRegistry registry;
    private final FilterWarmer warmer;
    private final RebuildCooldown cooldown;
    private final Duration rebuildCooldown;
    /** Renews the fleet's turns of the rebuilds running; its one thread starts with the first. */
    private final ScheduledThreadPoolExecutor renewals;

    RebuildRequests(BloomFilterRegistry registry, FilterWarmer warmer, Duration rebuildCooldown) {
        this.registry = registry;
        this.warmer = warmer;
        this.cooldown = new RebuildCooldown(rebuildCooldown, System::nanoTime);
        this.rebuildCooldown = rebuildCooldown;
        this.renewals = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "bloomguard-rebuild-turn");
            thread.setDaemon(true);
            return thread;
        });
        this.renewals.setRemoveOnCancelPolicy(true);
    }

    /** Stops renewing turns: each lapses a cooldown after its last renewal. */
    void close() {
        renewals.shutdownNow();
    }

    /** See {@link BloomGuardEndpoint#rebuild}. */
    WebEndpointResponse<RebuildDescriptor> rebuild(String filter) {
        Optional<Duration> wait = cooldown.start(filter);
        if (wait.isPresent()) {
            return coolingDown(filter, wait.get());
        }
        RebuildTurn turn = null;
        CompletableFuture<LoadReport> load;
        try {
            if (warmer.isWarming(filter)) {
                // Not asked of the warmer, which would queue a rebuild behind the running load.
                cooldown.cancel(filter);
                return alreadyRunning(filter);
            }
            if (registry.contains(filter) && !rebuildCooldown.isZero()) {
                // First the turn: a rebuild another instance's endpoint started holds it while it runs.
                Optional<RebuildTurn> taken = registry.filter(filter).tryRebuildTurn(rebuildCooldown);
                if (taken.isEmpty()) {
                    cooldown.cancel(filter);
                    return coolingDown(filter, rebuildCooldown);
                }
                turn = taken.get();
                turn.keepWhileRunning(renewals);
            }
            if (loadingElsewhere(filter)) {
                // A warmup or scheduled rebuild in another instance: nothing is queued behind it either.
                giveBack(filter, turn);
                return alreadyRunning(filter);
            }
            load = warmer.rebuild(filter);
        }
        catch (IllegalArgumentException ex) {
            giveBack(filter, turn);
            throw new InvalidEndpointRequestException(ex.getMessage(), ex.getMessage());
        }
        catch (BitmapStoreException ex) {
            giveBack(filter, turn);
            log.warn("Filter '{}': no rebuild started, as Redis failed when asked whether the fleet may rebuild it"
                    + " now: {}", filter, ex.toString());
            return new WebEndpointResponse<>(new RebuildDescriptor(filter, "failed", REDIS_FAILED, null),
                    SERVICE_UNAVAILABLE);
        }
        if (load.isCompletedExceptionally()) {
            giveBack(filter, turn);
            return new WebEndpointResponse<>(new RebuildDescriptor(filter, "failed", LOAD_FAILED, null));
        }
        RebuildTurn started = turn;
        load.whenComplete((report, error) -> {
            cooldown.finished(filter);
            if (started != null) {
                try {
                    started.ended();
                }
                catch (BitmapStoreException ex) {
                    // The fleet's turn then expires a cooldown after it was taken: earlier, never later.
                }
            }
        });
        return new WebEndpointResponse<>(new RebuildDescriptor(filter, "started", null, null));
    }

    /** Whether another instance of the fleet holds the filter's load lock: a load runs there. */
    private boolean loadingElsewhere(String filter) {
        return registry.contains(filter) && registry.filter(filter).lockHolder().isPresent();
    }

    private static WebEndpointResponse<RebuildDescriptor> alreadyRunning(String filter) {
        return new WebEndpointResponse<>(new RebuildDescriptor(filter, "already-running", null, null));
    }

    private WebEndpointResponse<RebuildDescriptor> coolingDown(String filter, Duration wait) {
        return new WebEndpointResponse<>(new RebuildDescriptor(filter, "cooling-down", null, wholeSeconds(wait)),
                TOO_MANY_REQUESTS);
    }

    /** The rebuild did not start: this instance's claim and the fleet's turn are given back. */
    private void giveBack(String filter, RebuildTurn turn) {
        cooldown.cancel(filter);
        if (turn != null) {
            try {
                turn.giveBack();
            }
            catch (BitmapStoreException ex) {
                // The turn expires by itself, a cooldown after it was taken.
            }
        }
    }

    /** Rounded up, so that a client that waits this long is not refused again. */
    private static Duration wholeSeconds(Duration duration) {
        Duration seconds = Duration.ofSeconds(duration.getSeconds());
        return seconds.equals(duration) ? seconds : seconds.plusSeconds(1);
    }
}
