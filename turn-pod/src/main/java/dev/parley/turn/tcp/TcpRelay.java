package dev.parley.turn.tcp;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The TCP side of one TCP allocation (RFC 6062): its peer data connections. Confined to the allocation's event loop.
 * At most {@link #MAX_CONNECTIONS} at a time (a quota: each holds two sockets).
 */
public final class TcpRelay {
    public static final int MAX_CONNECTIONS = 32;

    private final List<PeerConnection> connections = new ArrayList<>();
    private final ConnectionRegistry registry;

    public TcpRelay(ConnectionRegistry registry) {
        this.registry = registry;
    }

    /** A connection to or from {@code peer} (IP and port) that is connecting, pending or bound; null if none. */
    public PeerConnection find(InetSocketAddress peer) {
        for (PeerConnection pc : connections) {
            if (pc.state() != PeerConnection.State.CLOSED && pc.peer().equals(peer)) {
                return pc;
            }
        }
        return null;
    }

    public boolean full() {
        return connections.size() >= MAX_CONNECTIONS;
    }

    public void add(PeerConnection pc) {
        connections.add(pc);
    }

    /** Forgets and closes {@code pc} (its channel closed, or its bind timed out). */
    public void remove(PeerConnection pc) {
        connections.remove(pc);
        if (pc.id() != 0) {
            registry.claim(pc.id(), pc);
        }
        pc.close();
    }

    public int size() {
        return connections.size();
    }

    /** Closes the connections {@code drop} selects (their peer is no longer acceptable); returns how many. */
    public int closeWhere(java.util.function.Predicate<PeerConnection> drop) {
        int n = 0;
        for (PeerConnection pc : List.copyOf(connections)) {
            if (drop.test(pc)) {
                remove(pc);
                n++;
            }
        }
        return n;
    }

    /** The allocation ends: every peer and client data connection is closed. */
    public void closeAll() {
        for (PeerConnection pc : List.copyOf(connections)) {
            remove(pc);
        }
    }
}
