package dev.parley.turn.server;

import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * The server's own transport addresses. Relaying to them would let a client chain allocations into a loop or reach
 * the listener from "inside" (when loopback or the pod CIDR is allowed), so they are refused on every path.
 */
public final class SelfAddresses {
    private final InetAddress relayAddress;
    private final InetAddress relayAddress6;
    private final int relayMin;
    private final int relayMax;
    private volatile int listenerPort;
    private volatile int tlsPort;
    private final int internalPort;

    /** {@code relayAddress6} is null when IPv6 relays are off. */
    public SelfAddresses(InetAddress relayAddress, InetAddress relayAddress6, int relayMin, int relayMax, int internalPort) {
        this.relayAddress = relayAddress;
        this.relayAddress6 = relayAddress6;
        this.relayMin = relayMin;
        this.relayMax = relayMax;
        this.internalPort = internalPort;
    }

    void listenerPorts(int port, int tls) {
        this.listenerPort = port;
        this.tlsPort = tls;
    }

    public boolean contains(InetSocketAddress peer) {
        int p = peer.getPort();
        boolean ourPort = (p >= relayMin && p <= relayMax) || p == listenerPort || p == tlsPort || p == internalPort;
        if (!ourPort) {
            return false;
        }
        InetAddress a = peer.getAddress();
        return a.equals(relayAddress) || a.equals(relayAddress6) || a.isLoopbackAddress() || a.isAnyLocalAddress();
    }
}
