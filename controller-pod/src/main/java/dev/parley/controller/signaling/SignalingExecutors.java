package dev.parley.controller.signaling;

import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The threads signaling runs on, shared by its classes: virtual-thread workers (behind each socket's serial
 * executor, the presence lanes and grace expiries) and one timer thread (join deadlines, the sweep, grace timers).
 */
@Singleton
public final class SignalingExecutors {
    final ExecutorService workers = Executors.newVirtualThreadPerTaskExecutor();
    final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "signaling-timers");
        t.setDaemon(true);
        return t;
    });

    @PreDestroy
    void stop() {
        timers.shutdownNow();
        workers.shutdownNow();
    }
}
