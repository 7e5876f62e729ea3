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
}
