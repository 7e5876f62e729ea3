package dev.parley.controller.signaling;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/** Runs tasks one at a time, in submission order, on a shared executor (one per socket). */
final class SerialExecutor implements Executor {
    private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    private final Executor backing;
    private boolean running;

    SerialExecutor(Executor backing) {
        this.backing = backing;
    }

    @Override
    public synchronized void execute(Runnable r) {
        tasks.add(r);
        if (!running) {
            running = true;
            backing.execute(this::drain);
        }
    }

    private void drain() {
        while (true) {
            Runnable next;
            synchronized (this) {
                next = tasks.poll();
                if (next == null) {
                    running = false;
                    return;
                }
            }
            try {
                next.run();
            } catch (Exception e) { // incl. checked exceptions thrown sneakily: the socket's queue must go on
                org.slf4j.LoggerFactory.getLogger(SerialExecutor.class).warn("socket task failed", e);
            }
        }
    }
}
