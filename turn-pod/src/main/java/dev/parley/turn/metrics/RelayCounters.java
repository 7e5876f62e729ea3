package dev.parley.turn.metrics;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The relayed packet and byte counts of one thread (an event loop). One writer per instance, so an increment is a
 * plain load and store (opaque: visible to the metrics reader, never torn) instead of an atomic read-modify-write
 * on a shared counter; {@link TurnMetrics} sums the instances when scraped.
 */
public final class RelayCounters {
    private static final VarHandle PACKETS_C2P;
    private static final VarHandle BYTES_C2P;
    private static final VarHandle PACKETS_P2C;
    private static final VarHandle BYTES_P2C;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            PACKETS_C2P = l.findVarHandle(RelayCounters.class, "packetsClientToPeer", long.class);
            BYTES_C2P = l.findVarHandle(RelayCounters.class, "bytesClientToPeer", long.class);
            PACKETS_P2C = l.findVarHandle(RelayCounters.class, "packetsPeerToClient", long.class);
            BYTES_P2C = l.findVarHandle(RelayCounters.class, "bytesPeerToClient", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // accessed only through the VarHandles above
    private long packetsClientToPeer;
    private long bytesClientToPeer;
    private long packetsPeerToClient;
    private long bytesPeerToClient;

    RelayCounters() {
    }

    /** One packet of {@code bytes} payload relayed client → peer; call only on the owning thread. */
    public void clientToPeer(int bytes) {
        PACKETS_C2P.setOpaque(this, (long) PACKETS_C2P.getOpaque(this) + 1);
        BYTES_C2P.setOpaque(this, (long) BYTES_C2P.getOpaque(this) + bytes);
    }

    /** One packet of {@code bytes} payload relayed peer → client; call only on the owning thread. */
    public void peerToClient(int bytes) {
        PACKETS_P2C.setOpaque(this, (long) PACKETS_P2C.getOpaque(this) + 1);
        BYTES_P2C.setOpaque(this, (long) BYTES_P2C.getOpaque(this) + bytes);
    }

    long packetsClientToPeer() {
        return (long) PACKETS_C2P.getOpaque(this);
    }

    long bytesClientToPeer() {
        return (long) BYTES_C2P.getOpaque(this);
    }

    long packetsPeerToClient() {
        return (long) PACKETS_P2C.getOpaque(this);
    }

    long bytesPeerToClient() {
        return (long) BYTES_P2C.getOpaque(this);
    }
}
