package dev.parley.media.dtls;

import org.bouncycastle.tls.DatagramTransport;

import java.io.IOException;

/**
 * One handshake attempt's view of the endpoint's queue (a client has exactly one). BouncyCastle closes the transport it was given
 * when a handshake fails; a failure before the server said anything (a ClientHello it rejected) must leave the
 * queue open for the next attempt, and must not answer with an alert: it goes unnoticed by the real client.
 * <p>
 * Plaintext (epoch 0) records get fresh record sequence numbers on the way in. Nothing authenticates them, so one
 * forged record with a high number would otherwise move BouncyCastle's replay window past the peer's real
 * records and stall the handshake; duplicates are still caught by the handshake layer (message_seq).
 */
final class HandshakeAttempt implements DatagramTransport {
    private static final int ALERT = 21;
    private final QueueDatagramTransport queue;
    private final Runnable firstFlight;
    private volatile boolean spoken, closed, owned;
    /** Next epoch-0 record sequence number (BouncyCastle's thread only). */
    private long plaintextSeq;

    /** @param firstFlight run once, before the first record other than an alert goes out */
    HandshakeAttempt(QueueDatagramTransport queue, Runnable firstFlight) {
        this.queue = queue;
        this.firstFlight = firstFlight;
    }

    /** Whether anything was sent: past that point a failure is the peer's to see, and final. */
    boolean spoken() { return spoken; }

    /** The handshake succeeded: from now on closing this closes the queue (close_notify, drain end). */
    void own() { owned = true; }

    @Override public int getReceiveLimit() { return queue.getReceiveLimit(); }
    @Override public int getSendLimit() { return queue.getSendLimit(); }

    @Override
    public int receive(byte[] buf, int off, int len, int waitMillis) throws IOException {
        if (closed) throw new IOException("attempt closed");
        int n = queue.receive(buf, off, len, waitMillis);
        if (n > 0) renumberPlaintext(buf, off, n);
        return n;
    }

    /** Records were checked by {@link DtlsRecords} before they were queued: the headers are whole. */
    private void renumberPlaintext(byte[] b, int off, int n) {
        int p = off, end = off + n;
        while (end - p >= DtlsRecords.HEADER) {
            if (b[p + 3] == 0 && b[p + 4] == 0) {
                long seq = plaintextSeq++;
                for (int i = 0; i < 6; i++) b[p + 10 - i] = (byte) (seq >>> (8 * i));
            }
            p += DtlsRecords.HEADER + (((b[p + 11] & 0xFF) << 8) | (b[p + 12] & 0xFF));
        }
    }

    @Override
    public void send(byte[] buf, int off, int len) throws IOException {
        if (!spoken) {
            if (len > 0 && buf[off] == ALERT) return; // rejecting a hello before our first flight: stay silent
            spoken = true;
            firstFlight.run();
        }
        queue.send(buf, off, len);
    }

    @Override
    public void close() {
        closed = true;
        if (owned) queue.close();
    }
}
