package dev.parley.sfu.net;

import org.junit.jupiter.api.Test;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A burst of datagrams that takes long to route: the output of its first packet must leave before the burst's
 * last packet is routed (bounded flush delay), not at the end of the read burst.
 */
class MediaIoFlushTest {
    private static final int BURST = 12;
    private static final long ROUTE_NANOS = TimeUnit.MILLISECONDS.toNanos(3);

    @Test
    void firstPacketOfALongBurstLeavesBeforeTheBurstEnds() throws Exception {
        Result r = run(TimeUnit.MICROSECONDS.toNanos(200));
        assertTrue(r.firstEchoAt < r.lastRoutedAt,
                "first echo at +" + (r.firstEchoAt - r.lastRoutedAt) / 1000 + " µs after the burst's last packet was routed");
    }

    @Test
    void withoutTheBoundTheBurstLeavesAtItsEnd() throws Exception {
        // shows the test above can fail: only the end-of-burst flush, so nothing leaves before the burst is routed
        Result r = run(Long.MAX_VALUE);
        assertTrue(r.firstEchoAt >= r.lastRoutedAt, "first echo came before the burst ended although only the end-of-burst flush ran");
    }

    private record Result(long firstEchoAt, long lastRoutedAt) { }

    private static Result run(long flushAfterNanos) throws Exception {
        AtomicLong lastRoutedAt = new AtomicLong();
        CountDownLatch routed = new CountDownLatch(BURST);
        AtomicReference<MediaIo> io = new AtomicReference<>();
        try (DatagramSocket client = new DatagramSocket(0, InetAddress.getLoopbackAddress());
             DatagramSocket sink = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            InetSocketAddress sinkAddress = (InetSocketAddress) sink.getLocalSocketAddress();
            PacketHandler echoToSink = new PacketHandler() {
                PacketPath out;

                @Override
                public void onPacket(byte[] b, int off, int len, PacketPath path, long receivedNanos) {
                    long end = System.nanoTime() + ROUTE_NANOS;     // routing a packet to many subscribers takes time
                    while (System.nanoTime() < end) Thread.onSpinWait();
                    if (out == null) out = io.get().udpPath(sinkAddress);
                    out.send(b, off, len);
                    lastRoutedAt.set(System.nanoTime());
                    routed.countDown();
                }

                @Override
                public void onPathClosed(PacketPath path) { }
            };
            io.set(new MediaIo(echoToSink, "flush-test", flushAfterNanos));
            try {
                io.get().bind("127.0.0.1", 0, 0);
                InetSocketAddress server = new InetSocketAddress("127.0.0.1", io.get().udpPort());
                // keep the media thread busy while the burst arrives, so one recvmmsg reads it all: one read burst
                CountDownLatch busy = new CountDownLatch(1);
                io.get().loop().execute(() -> {
                    busy.countDown();
                    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
                    while (System.nanoTime() < end) Thread.onSpinWait();
                });
                assertTrue(busy.await(5, TimeUnit.SECONDS));
                for (int i = 0; i < BURST; i++) client.send(new DatagramPacket(new byte[]{(byte) i}, 1, server));
                sink.setSoTimeout(5_000);
                DatagramPacket first = new DatagramPacket(new byte[16], 16);
                sink.receive(first);
                long firstEchoAt = System.nanoTime();
                assertTrue(routed.await(5, TimeUnit.SECONDS), "burst not routed");
                assertEquals(0, first.getData()[0], "first echo is the burst's first packet");
                drain(sink);
                return new Result(firstEchoAt, lastRoutedAt.get());
            } finally {
                io.get().close();
            }
        }
    }

    private static void drain(DatagramSocket sink) throws Exception {
        sink.setSoTimeout(200);
        try {
            while (true) sink.receive(new DatagramPacket(new byte[16], 16));
        } catch (SocketTimeoutException done) {
            // every echo read
        }
    }
}
