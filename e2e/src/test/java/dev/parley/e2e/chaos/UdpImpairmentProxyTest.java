package dev.parley.e2e.chaos;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The impairment proxy on loopback: relays both ways, drops its share, delays, and reorders with jitter. */
class UdpImpairmentProxyTest {
    @Test
    void relaysDropsDelaysAndReorders() throws Exception {
        try (DatagramChannel server = DatagramChannel.open().setOption(java.net.StandardSocketOptions.SO_RCVBUF, 1 << 20)
                 .bind(new InetSocketAddress("127.0.0.1", 0));
             DatagramChannel client = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            int serverPort = ((InetSocketAddress) server.getLocalAddress()).getPort();
            try (UdpImpairmentProxy proxy = new UdpImpairmentProxy(serverPort)) {
                client.connect(new InetSocketAddress("127.0.0.1", proxy.port()));
                server.socket().setSoTimeout(2000);
                // plain relay, and the answer comes back to the client through the same session
                client.write(ByteBuffer.wrap(new byte[] {42}));
                ByteBuffer b = ByteBuffer.allocate(16);
                InetSocketAddress from = (InetSocketAddress) server.receive(b);
                assertThat(b.flip().get()).isEqualTo((byte) 42);
                server.send(ByteBuffer.wrap(new byte[] {7}), from);
                ByteBuffer back = ByteBuffer.allocate(16);
                client.socket().setSoTimeout(2000);
                client.read(back);
                assertThat(back.flip().get()).isEqualTo((byte) 7);

                proxy.impair(30, 50, 40);
                long t0 = System.nanoTime();
                for (int i = 0; i < 400; i++) {
                    client.write(ByteBuffer.wrap(new byte[] {(byte) (i >> 8), (byte) i}));
                    if (i % 20 == 19) Thread.sleep(2); // paced like media, so no socket buffer overflows
                }
                List<Integer> got = new ArrayList<>();
                server.configureBlocking(true);
                long firstAt = 0;
                try {
                    while (true) {
                        ByteBuffer r = ByteBuffer.allocate(4);
                        var s = server.socket();
                        java.net.DatagramPacket p = new java.net.DatagramPacket(new byte[4], 4);
                        s.receive(p);
                        if (firstAt == 0) firstAt = System.nanoTime();
                        got.add(((p.getData()[0] & 0xFF) << 8) | (p.getData()[1] & 0xFF));
                    }
                } catch (SocketTimeoutException done) {
                    // all delivered
                }
                assertThat(got.size()).as("about 70 % delivered").isBetween(220, 340);
                assertThat((firstAt - t0) / 1_000_000).as("delayed by at least 50 ms").isGreaterThanOrEqualTo(45);
                int outOfOrder = 0;
                for (int i = 1; i < got.size(); i++) if (got.get(i) < got.get(i - 1)) outOfOrder++;
                assertThat(outOfOrder).as("jitter reorders").isPositive();
                assertThat(proxy.reordered.get()).isPositive();
                assertThat(proxy.dropped.get()).isBetween(60L, 180L);
            }
        }
    }
}
