package dev.parley.testsupport.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

class FreePortsTest {

    @Test
    void tcpPortIsBindableAndNotRepeated() throws Exception {
        int a = FreePorts.tcp();
        int b = FreePorts.tcp();
        assertThat(a).isNotEqualTo(b);
        assertThat(FreePorts.isListening(a)).isFalse();
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), a));
            assertThat(FreePorts.isListening(a)).isTrue();
        }
    }

    @Test
    void udpAndDualPortsAreBindable() throws Exception {
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), FreePorts.udp()))) {
            assertThat(s.isBound()).isTrue();
        }
        int both = FreePorts.tcpAndUdp();
        try (ServerSocket t = new ServerSocket(both, 1, InetAddress.getLoopbackAddress());
             DatagramSocket u = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), both))) {
            assertThat(t.getLocalPort()).isEqualTo(u.getLocalPort());
        }
    }

    /** An SFU with n media workers binds UDP and ICE-TCP at base .. base + n - 1: every one of them must be free. */
    @Test
    void aRangeIsFreeForTcpAndUdpAndNeverHandedOutAgain() throws Exception {
        java.util.Set<Integer> ranges = new java.util.HashSet<>();
        for (int i = 0; i < 20; i++) {
            int base = FreePorts.tcpAndUdpRange(3);
            for (int port = base; port < base + 3; port++) {
                assertThat(ranges.add(port)).as("port %d handed out twice", port).isTrue();
                try (ServerSocket t = new ServerSocket(port, 1, InetAddress.getLoopbackAddress());
                     DatagramSocket u = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), port))) {
                    assertThat(u.getLocalPort()).isEqualTo(t.getLocalPort());
                }
            }
        }
        for (int i = 0; i < 200; i++) assertThat(ranges).doesNotContain(FreePorts.tcp());
    }
}
