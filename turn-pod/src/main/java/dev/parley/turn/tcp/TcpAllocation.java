package dev.parley.turn.tcp;

import io.netty.channel.EventLoop;

/**
 * What the TCP relay needs of the allocation that owns it. The allocation package implements this, so {@code tcp}
 * knows nothing of {@code allocation} (the dependency runs one way: allocation → tcp).
 */
public interface TcpAllocation {
    /** The loop the allocation, its relay and its peer connections are confined to. */
    EventLoop loop();

    /** The TCP relay state (its peer data connections); null for a UDP allocation. */
    TcpRelay tcp();

    /** The allocation ended (expired, refreshed to 0, drained). */
    boolean closed();

    /** The TURN username that created the allocation: a ConnectionBind must carry the same. */
    String username();

    /** Charges {@code bytes} to the bandwidth budget; false if the budget is spent (the caller throttles). */
    boolean consume(int bytes);
}
