package dev.parley.sfu.net;

import java.net.SocketAddress;

/** One ICE path to a browser: a UDP 5-tuple on the shared port, or one accepted ICE-TCP connection. */
public interface PacketPath {
    /** Copies and queues one packet (flushed at the end of the current read batch). False if dropped. */
    boolean send(byte[] b, int off, int len);

    /** False while the path's send queue is over its bound (TCP back-pressure). */
    boolean writable();

    boolean isTcp();

    SocketAddress remote();

    /** Closes a TCP connection; no-op for UDP. */
    void close();
}
