package dev.parley.turn.server;

import io.netty.channel.Channel;
import io.netty.util.concurrent.FastThreadLocal;

/**
 * Coalesces flushes per event loop: the relay path only {@code write}s, registers the channel here, and one task —
 * run by the loop after it has processed the current batch of I/O events — flushes every channel touched in that
 * batch. Packets from many allocations going out through the same listener socket then leave in one flush (one
 * sendmmsg under epoll) instead of one syscall each. Loop-confined: no locks.
 */
final class FlushBatcher implements Runnable {
    private static final FastThreadLocal<FlushBatcher> PER_LOOP = new FastThreadLocal<>() {
        @Override
        protected FlushBatcher initialValue() {
            return new FlushBatcher();
        }
    };

    private Channel[] pending = new Channel[64];
    private int count;
    private boolean scheduled;

    /** The batcher of the calling event loop thread. */
    static FlushBatcher current() {
        return PER_LOOP.get();
    }

    /** Flushes {@code ch} at the end of the current I/O batch; must be called on {@code ch}'s event loop. */
    void flushLater(Channel ch) {
        for (int i = 0; i < count; i++) {
            if (pending[i] == ch) {
                return;
            }
        }
        if (count == pending.length) {
            pending = java.util.Arrays.copyOf(pending, count * 2);
        }
        pending[count++] = ch;
        if (!scheduled) {
            scheduled = true;
            ch.eventLoop().execute(this);
        }
    }

    @Override
    public void run() {
        int n = count;
        count = 0;
        scheduled = false;
        for (int i = 0; i < n; i++) {
            Channel ch = pending[i];
            pending[i] = null;
            ch.flush();
        }
    }
}
