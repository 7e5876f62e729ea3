package dev.parley.turn.server;

import dev.parley.turn.allocation.Allocation;
import io.netty.channel.Channel;

import java.util.function.Consumer;

/** Opens the relay socket of an allocation on the allocation's event loop. */
public interface RelayBinder {
    void bind(Allocation allocation, int port, Consumer<Channel> onBound, Consumer<Throwable> onFailed);
}
