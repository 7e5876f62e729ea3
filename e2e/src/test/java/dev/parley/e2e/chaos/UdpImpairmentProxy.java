package dev.parley.e2e.chaos;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A user-space stand-in for {@code tc netem} (not available in this kernel) on one SFU media port: clients are
 * told the proxy's port instead of the SFU's (the load client dials it, browsers get the SFU answer's UDP candidate
 * rewritten, see {@link BrowserMeeting}), and every datagram in both directions can be dropped, delayed and, with
 * jitter, reordered. Each client address gets its own upstream socket, so the SFU still sees one 5-tuple per
 * client. Loopback only. Impairment starts off (a plain relay).
 */
final class UdpImpairmentProxy implements AutoCloseable {
    private final DatagramChannel front;
    private final InetSocketAddress upstream;
    private final Map<SocketAddress, Session> sessions = new ConcurrentHashMap<>();
    private final DelayQueue<Delayed0> queue = new DelayQueue<>();
    private volatile boolean closed;
    private volatile double lossPercent;
    private volatile int delayMs;
    private volatile int jitterMs;
    final AtomicLong relayed = new AtomicLong();
    final AtomicLong dropped = new AtomicLong();
    final AtomicLong delayed = new AtomicLong();
    /** Datagrams sent after a later-sequenced datagram of the same direction and session. */
    final AtomicLong reordered = new AtomicLong();

    UdpImpairmentProxy(int sfuPort) throws IOException {
        upstream = new InetSocketAddress("127.0.0.1", sfuPort);
        front = DatagramChannel.open();
        front.setOption(java.net.StandardSocketOptions.SO_RCVBUF, 1 << 20); // bursts of keyframes from many clients
        front.bind(new InetSocketAddress("127.0.0.1", 0));
        Thread.ofPlatform().daemon().name("udp-proxy-front-" + sfuPort).start(this::frontLoop);
        Thread.ofPlatform().daemon().name("udp-proxy-delay-" + sfuPort).start(this::delayLoop);
    }

    int port() {
        try {
            return ((InetSocketAddress) front.getLocalAddress()).getPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    int sfuPort() {
        return upstream.getPort();
    }

    /** Loss in percent and a one-way delay of {@code delayMs} + uniform [0, jitterMs) per datagram, both ways. */
    void impair(double lossPercent, int delayMs, int jitterMs) {
        this.lossPercent = lossPercent;
        this.delayMs = delayMs;
        this.jitterMs = jitterMs;
    }

    void clear() {
        impair(0, 0, 0);
    }

    /** The largest one-way delay a datagram can get right now (for the invariants' slack). */
    int maxDelayMs() {
        return delayMs + jitterMs;
    }

    private void frontLoop() {
        ByteBuffer buf = ByteBuffer.allocate(2048);
        while (!closed) {
            try {
                buf.clear();
                SocketAddress from = front.receive(buf);
                buf.flip();
                Session s = sessions.computeIfAbsent(from, this::open);
                if (s != null) pass(s, true, buf);
            } catch (IOException e) {
                if (!closed) sleepQuietly(10);
            }
        }
    }

    private Session open(SocketAddress client) {
        try {
            DatagramChannel up = DatagramChannel.open();
            up.bind(new InetSocketAddress("127.0.0.1", 0));
            up.connect(upstream);
            Session s = new Session(client, up);
            Thread.ofVirtual().start(() -> upstreamLoop(s));
            return s;
        } catch (IOException e) {
            return null;
        }
    }

    private void upstreamLoop(Session s) {
        ByteBuffer buf = ByteBuffer.allocate(2048);
        while (!closed) {
            try {
                buf.clear();
                s.up.receive(buf);
                buf.flip();
                pass(s, false, buf);
            } catch (IOException e) {
                // the SFU port is gone (SFU killed): ICMP unreachable surfaces as an exception; keep the session
                if (closed) return;
                sleepQuietly(20);
            }
        }
    }

    private void pass(Session s, boolean toSfu, ByteBuffer buf) {
        double loss = lossPercent;
        if (loss > 0 && ThreadLocalRandom.current().nextDouble(100) < loss) {
            dropped.incrementAndGet();
            return;
        }
        byte[] copy = new byte[buf.remaining()];
        buf.get(copy);
        long seq = (toSfu ? s.seqUp : s.seqDown).incrementAndGet();
        int d = delayMs + (jitterMs > 0 ? ThreadLocalRandom.current().nextInt(jitterMs) : 0);
        if (d <= 0) {
            send(new Delayed0(s, toSfu, copy, 0, seq));
        } else {
            delayed.incrementAndGet();
            queue.add(new Delayed0(s, toSfu, copy, System.nanoTime() + d * 1_000_000L, seq));
        }
    }

    private void delayLoop() {
        while (!closed) {
            try {
                Delayed0 p = queue.poll(100, TimeUnit.MILLISECONDS);
                if (p != null) send(p);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void send(Delayed0 p) {
        try {
            AtomicLong last = p.toSfu ? p.s.sentUp : p.s.sentDown;
            if (p.seq < last.get()) reordered.incrementAndGet();
            else last.set(p.seq);
            if (p.toSfu) p.s.up.write(ByteBuffer.wrap(p.data));
            else front.send(ByteBuffer.wrap(p.data), p.s.client);
            relayed.incrementAndGet();
        } catch (IOException e) {
            dropped.incrementAndGet(); // SFU gone: like a network that eats the packet
        }
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            front.close();
        } catch (IOException ignored) {
            // closing
        }
        for (Session s : sessions.values()) {
            try {
                s.up.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }

    private static final class Session {
        final SocketAddress client;
        final DatagramChannel up;
        final AtomicLong seqUp = new AtomicLong(), seqDown = new AtomicLong();
        final AtomicLong sentUp = new AtomicLong(), sentDown = new AtomicLong();

        Session(SocketAddress client, DatagramChannel up) {
            this.client = client;
            this.up = up;
        }
    }

    private record Delayed0(Session s, boolean toSfu, byte[] data, long dueNanos, long seq) implements Delayed {
        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(dueNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed o) {
            return Long.compare(dueNanos, ((Delayed0) o).dueNanos);
        }
    }
}
