package dev.parley.turn.admin;

import dev.parley.turn.server.TurnServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Drain: stop taking new allocations (403), let existing ones run, and call {@code onDrained} once when the last one
 * is gone or the grace period ends — whichever comes first.
 */
public final class DrainController {
    private static final Logger LOG = LoggerFactory.getLogger(DrainController.class);
    private final TurnServer server;
    private final Runnable onDrained;
    private final AtomicBoolean finished = new AtomicBoolean();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "turn-drain");
        t.setDaemon(true);
        return t;
    });
    private volatile long deadlineNanos;

    public DrainController(TurnServer server, Runnable onDrained) {
        this.server = server;
        this.onDrained = onDrained;
    }

    /** Starts draining (idempotent; a second call may only shorten the grace period). */
    public synchronized void drain(Duration grace) {
        long deadline = System.nanoTime() + grace.toNanos();
        if (server.draining()) {
            deadlineNanos = Math.min(deadlineNanos, deadline);
            return;
        }
        deadlineNanos = deadline;
        server.startDraining();
        LOG.info("draining: {} allocations remain, grace {}", server.table().size(), grace);
        timer.scheduleWithFixedDelay(this::check, 0, 500, TimeUnit.MILLISECONDS);
    }

    private void check() {
        int left = server.table().size();
        boolean timeUp = System.nanoTime() - deadlineNanos >= 0;
        if ((left == 0 || timeUp) && finished.compareAndSet(false, true)) {
            LOG.info("drain finished: {} allocations remain{}", left, timeUp ? " (grace period over)" : "");
            timer.shutdown();
            onDrained.run();
        }
    }

    public boolean finished() {
        return finished.get();
    }

    public int remaining() {
        return server.table().size();
    }
}
