package dev.parley.controller.observability;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.inject.Singleton;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * {@code parley_request_latency_seconds} per operation (p50/p95/p99), {@code parley_join_to_media_ready_seconds} and
 * {@code parley_duplicate_events_total} (replayed requests; seed 000's duplicate_event_rate is its rate()). Timers
 * record in seconds: a unit in the name (the old join_to_media_ready_ms) would end up as "_ms_seconds".
 */
@io.micronaut.context.annotation.Context
@Singleton
public class RequestMetrics {
    private final MeterRegistry meters;
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();
    private final Counter duplicates;
    private final Timer joinToMediaReady;

    public RequestMetrics(MeterRegistry meters) {
        this.meters = meters;
        this.duplicates = Counter.builder("parley_duplicate_events")
                .description("requests answered from an idempotency record instead of being executed again")
                .register(meters);
        this.joinToMediaReady = Timer.builder("parley_join_to_media_ready")
                .description("admission until the SFU answered the first offer of the participant")
                .publishPercentiles(0.5, 0.95, 0.99).register(meters);
    }

    public Timer joinToMediaReady() {
        return joinToMediaReady;
    }

    public <T> T time(String operation, Supplier<T> work) {
        Timer t = timers.computeIfAbsent(operation, op -> Timer.builder("parley_request_latency").tag("operation", op)
                .publishPercentiles(0.5, 0.95, 0.99).register(meters));
        long start = System.nanoTime();
        try {
            return work.get();
        } finally {
            t.record(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS);
        }
    }

    public void duplicate() {
        duplicates.increment();
    }
}
