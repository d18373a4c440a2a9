package dev.bloomguard.spring.actuate;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import dev.bloomguard.core.FilterState;
import dev.bloomguard.core.FilterStatus;
import dev.bloomguard.core.redis.CircuitBreaker;

/**
 * What the {@code bloomGuard} health contributor says, apart from Spring Boot's health types,
 * which moved package between Boot 3 ({@link BloomGuardHealthIndicator}) and Boot 4
 * ({@code dev.bloomguard.spring.boot4.Boot4HealthIndicator}): one detail per filter (state, fill
 * ratio, estimated fpp, whether it is over capacity, circuit breaker), from the
 * {@link FilterStatusCache}, so a health check never makes Redis count bits.
 *
 * <p>{@code UP} when every filter is READY and the circuit breaker is closed; otherwise
 * {@code UNKNOWN}, never {@code DOWN}. The one thing not to get wrong: a filter that is WARMING
 * or DEGRADED, or a Redis that is failing, does not break the application; the guard lets
 * calls through (or blocks them, if {@code on-redis-failure: block} says so) until the filter
 * is ready again, so taking the instance out of the load balancer would only turn a slower
 * database into an outage. {@code UNKNOWN} ranks below {@code UP} in Spring Boot's default
 * status order and maps to HTTP 200, so it neither changes the aggregate health nor fails a
 * readiness probe. To gate readiness on warm filters, add {@code bloomGuard} to a health group
 * and map {@code UNKNOWN} to 503 in that group's {@code status.http-mapping}.
 */
public final class BloomGuardHealth {

    private final FilterStatusCache statuses;

    public BloomGuardHealth(FilterStatusCache statuses) {
        this.statuses = statuses;
    }

    /**
     * @param up {@code UP} when true, {@code UNKNOWN} otherwise
     * @param details per filter name, its details
     */
    public record Report(boolean up, Map<String, Object> details) {
    }

    public Report report() {
        Optional<CircuitBreaker.State> circuit = statuses.circuitState();
        boolean healthy = circuit.map(state -> state == CircuitBreaker.State.CLOSED).orElse(true);
        Map<String, Object> filters = new LinkedHashMap<>();
        for (String name : statuses.registry().names()) {
            Map<String, Object> details = new LinkedHashMap<>();
            Optional<FilterStatus> status = statuses.snapshot(name).map(FilterStatusCache.Snapshot::status);
            if (status.isEmpty()) {
                details.put("state", "UNREAD");
                healthy = false;
            }
            else {
                details.put("state", status.get().state());
                healthy &= status.get().state() == FilterState.READY;
                if (status.get().bitCount() >= 0) {
                    details.put("fillRatio", status.get().fillRatio());
                    details.put("estimatedFpp", status.get().estimatedFpp());
                }
                // Shown, not a reason for UNKNOWN: such a filter still blocks only absent keys.
                details.put("overCapacity", status.get().overCapacity());
                details.put("expectedInsertions", status.get().geometry().expectedInsertions());
                status.get().resizedFrom().ifPresent(
                        configured -> details.put("resizedFrom", configured.expectedInsertions()));
            }
            circuit.ifPresent(state -> details.put("circuit", state));
            filters.put(name, details);
        }
        return new Report(healthy, filters);
    }
}
