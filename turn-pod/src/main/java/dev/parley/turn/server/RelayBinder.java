package dev.parley.turn.server;

import dev.parley.turn.allocation.Allocation;
import io.netty.channel.Channel;

import java.util.function.Consumer;

/** Opens the relay socket of an allocation on the allocation's event loop. */
public interface RelayBinder {
    /** @param dontFragment set DF on every datagram the relay socket sends (only if the binder supports it) */
    void bind(Allocation allocation, int port, boolean dontFragment, Consumer<Channel> onBound, Consumer<Throwable> onFailed);

    /** True if {@link #bind} can honour {@code dontFragment} (DONT-FRAGMENT is then accepted in Allocate). */
    default boolean supportsDontFragment() {
        return false;
    }
}
