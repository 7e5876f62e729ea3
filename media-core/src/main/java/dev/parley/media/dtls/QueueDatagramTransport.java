package dev.parley.media.dtls;

import org.bouncycastle.tls.DatagramTransport;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Bridges BouncyCastle's blocking DTLS engine to our demultiplexed packet path: the network side
 * {@link #offer}s DTLS records, the handshake thread receives them; sends go to a {@link Sender}.
 */
public final class QueueDatagramTransport implements DatagramTransport {
    /** Where outgoing DTLS records go (the transport's currently selected ICE path). */
    @FunctionalInterface
    public interface Sender { void send(byte[] b, int off, int len); }

    private static final int MTU = 1200;
    private final BlockingQueue<byte[]> inbound = new ArrayBlockingQueue<>(64);
    private final Sender sender;
    private volatile boolean closed;

    public QueueDatagramTransport(Sender sender) { this.sender = sender; }

    /** Called from the network thread; drops (returns false) if the handshake is not keeping up. */
    public boolean offer(byte[] b, int off, int len) {
        if (closed) return false;
        byte[] copy = new byte[len];
        System.arraycopy(b, off, copy, 0, len);
        return inbound.offer(copy);
    }

    @Override public int getReceiveLimit() { return 1500; }
    @Override public int getSendLimit() { return MTU - 28; }

    @Override
    public int receive(byte[] buf, int off, int len, int waitMillis) throws IOException {
        if (closed) throw new IOException("closed");
        try {
            byte[] p = inbound.poll(Math.max(1, waitMillis), TimeUnit.MILLISECONDS);
            if (p == null) return closed ? -1 : -1;
            int n = Math.min(len, p.length);
            System.arraycopy(p, 0, buf, off, n);
            return n;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException();
        }
    }

    @Override
    public void send(byte[] buf, int off, int len) throws IOException {
        if (closed) throw new IOException("closed");
        sender.send(buf, off, len);
    }

    @Override
    public void close() { closed = true; inbound.clear(); }

    public boolean isClosed() { return closed; }
}
