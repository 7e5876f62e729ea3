package dev.parley.controller.observability;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.inject.Singleton;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/** {@code request_latency} per operation (p50/p95/p99) and {@code duplicate_event_rate} (replayed requests). */
@io.micronaut.context.annotation.Context
@Singleton
public class RequestMetrics {
    private final MeterRegistry meters;
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();
    private final Counter duplicates;
    private final Timer joinToMediaReady;

    public RequestMetrics(MeterRegistry meters) {
        this.meters = meters;
        this.duplicates = Counter.builder("duplicate_event_rate")
                .description("requests answered from an idempotency record instead of being executed again")
                .register(meters);
        this.joinToMediaReady = Timer.builder("join_to_media_ready_ms")
                .description("admission until the SFU answered the first offer of the participant")
                .publishPercentiles(0.5, 0.95, 0.99).register(meters);
    }

    public Timer joinToMediaReady() {
        return joinToMediaReady;
    }

    public <T> T time(String operation, Supplier<T> work) {
        Timer t = timers.computeIfAbsent(operation, op -> Timer.builder("request_latency").tag("operation", op)
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
