package dev.parley.turn.tcp;

import io.netty.channel.Channel;

import java.net.InetSocketAddress;
import java.util.concurrent.Future;

/**
 * One peer data connection of a TCP allocation (RFC 6062): the TCP connection between the relayed address and a
 * peer, and, once a ConnectionBind named it, the client data connection it is spliced to. State changes happen on
 * the allocation's event loop.
 */
public final class PeerConnection {
    public enum State { CONNECTING, PENDING_BIND, BOUND, CLOSED }

    private final TcpAllocation allocation;
    private final InetSocketAddress peer;
    private int id;
    private State state;
    private Channel peerChannel;
    private volatile Channel clientData;
    private Future<?> bindTimeout;
    /** Made by the relay for a Connect (true) or accepted from a peer (false): what the peer policy judged. */
    private final boolean outbound;

    public PeerConnection(TcpAllocation allocation, InetSocketAddress peer, State initial) {
        this(allocation, peer, initial, false);
    }

    public PeerConnection(TcpAllocation allocation, InetSocketAddress peer, State initial, boolean outbound) {
        this.allocation = allocation;
        this.peer = peer;
        this.state = initial;
        this.outbound = outbound;
    }

    /** True for a connection the relay made (Connect): the policy judged its address and port. */
    public boolean outbound() {
        return outbound;
    }

    public TcpAllocation allocation() {
        return allocation;
    }

    public InetSocketAddress peer() {
        return peer;
    }

    /** The CONNECTION-ID (0 until registered). */
    public int id() {
        return id;
    }

    void id(int id) {
        this.id = id;
    }

    public State state() {
        return state;
    }

    public void peerChannel(Channel ch) {
        this.peerChannel = ch;
    }

    public Channel peerChannel() {
        return peerChannel;
    }

    /** The client data connection, once bound (read from both loops: volatile). */
    public Channel clientData() {
        return clientData;
    }

    /** Connected (Connect) or accepted (inbound): waiting for the client's ConnectionBind until {@code timeout}. */
    public void pendingBind(Future<?> timeout) {
        this.state = State.PENDING_BIND;
        this.bindTimeout = timeout;
    }

    /** Spliced to {@code data}; false if the connection was closed meanwhile (then the caller closes {@code data}). */
    public boolean bind(Channel data) {
        if (state != State.PENDING_BIND) {
            return false;
        }
        state = State.BOUND;
        clientData = data;
        if (bindTimeout != null) {
            bindTimeout.cancel(false);
        }
        return true;
    }

    /** Closes both sides; idempotent. */
    public void close() {
        state = State.CLOSED;
        if (bindTimeout != null) {
            bindTimeout.cancel(false);
        }
        if (peerChannel != null) {
            peerChannel.close();
        }
        Channel data = clientData;
        if (data != null) {
            data.close();
        }
    }
}
