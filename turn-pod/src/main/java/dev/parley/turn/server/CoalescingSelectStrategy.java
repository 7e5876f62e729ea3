package dev.parley.turn.server;

import io.netty.channel.SelectStrategy;
import io.netty.util.IntSupplier;

import java.util.concurrent.locks.LockSupport;

/**
 * Wake-up coalescing for a relay event loop, as a network card coalesces interrupts. After the loop has handled a
 * small batch of I/O it sleeps {@code window} and then polls epoll without blocking, so the packets that arrived
 * meanwhile (on the listener and on many relay sockets) are handled in one pass, their sends leave in one flush, and
 * the thread is woken about once per window instead of once per packet. When a poll finds nothing the loop blocks in
 * epoll_wait as usual, so an idle relay does not tick. A busy loop (a poll found {@link #BUSY} or more ready sockets)
 * does not sleep: it already handles many packets per pass, and sleeping would only cap its throughput (without this
 * exemption the relay lost up to 10 % of the packets at 20 000 packets/s each way). The price is up to {@code window} of
 * added delay per hop. Opt-in (PARLEY_TURN_COALESCE_MICROS): on the loaded bench machine it did not save CPU
 * (docs/turn.md, bench/turn/README.md).
 *
 * <p>Tasks from other threads (and due timers) are handled at the next poll, at most one window late: while the
 * loop sleeps here Netty believes it awake and does not signal its eventfd.
 */
final class CoalescingSelectStrategy implements SelectStrategy {
    /** A poll that found this many ready sockets means the loop is busy: poll again at once, do not sleep. */
    static final int BUSY = 8;

    private final long windowNanos;
    private int lastReady;

    CoalescingSelectStrategy(long windowNanos) {
        if (windowNanos <= 0) {
            throw new IllegalArgumentException("window must be positive");
        }
        this.windowNanos = windowNanos;
    }

    @Override
    public int calculateStrategy(IntSupplier selectNow, boolean hasTasks) throws Exception {
        if (!hasTasks && lastReady < BUSY) {
            LockSupport.parkNanos(windowNanos);
        }
        int ready = selectNow.get();
        lastReady = ready;
        // nothing arrived during the window (and no tasks wait): block in epoll_wait; a wake-up from there sleeps first
        return ready > 0 || hasTasks ? ready : SELECT;
    }
}
