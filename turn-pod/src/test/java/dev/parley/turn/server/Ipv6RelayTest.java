package dev.parley.turn.server;

import dev.parley.media.stun.StunAttribute;
import dev.parley.media.stun.StunClass;
import dev.parley.media.stun.StunMessage;
import dev.parley.media.stun.StunMethod;
import dev.parley.platform.turn.TurnCredential;
import dev.parley.turn.metrics.TurnMetrics;
import dev.parley.turn.support.TestSockets;
import dev.parley.turn.support.TestTurnClient;
import dev.parley.turn.support.TurnFixture;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static dev.parley.turn.support.TestSockets.bytes;
import static dev.parley.turn.support.TestSockets.receive;
import static dev.parley.turn.support.TestSockets.receivePacket;
import static dev.parley.turn.support.TurnFixture.SECRET;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * IPv6 relayed addresses (REQUESTED-ADDRESS-FAMILY, RFC 8656 §7.2) on ::1: an IPv6 allocation relays to IPv6 peers
 * both ways (Send/Data and channels), peers of the other family get 443 on every path, and a server without an IPv6
 * relay address answers 440.
 */
class Ipv6RelayTest {
    private static final byte[] V6 = {0x02, 0, 0, 0}; // family, then 3 reserved bytes
    private final TestSockets sockets = new TestSockets();
    private TurnServer server;

    private InetSocketAddress start(Map<String, String> overrides) throws Exception {
        server = new TurnServer(TurnFixture.config(overrides), new TurnMetrics(), System::currentTimeMillis).start();
        return new InetSocketAddress("127.0.0.1", server.port());
    }

    private InetSocketAddress startDualStack() throws Exception {
        return start(Map.of("PARLEY_TURN_RELAY_ADDRESS6", "::1", "PARLEY_TURN_ALLOWED_PEERS", "127.0.0.1:0-65535,[::1]:0-65535"));
    }

    @AfterEach
    void stop() throws Exception {
        sockets.close();
        if (server != null) {
            server.stop();
        }
    }

    private TestTurnClient client(InetSocketAddress addr) throws Exception {
        return sockets.udpClient(addr);
    }

    private DatagramSocket peer(String ip) throws Exception {
        return sockets.peer(ip);
    }

    private static TurnCredential cred(String participant) {
        return TurnFixture.credential(SECRET, participant, Duration.ofHours(1));
    }

    private static StunMessage allocate6(TestTurnClient c, String participant) throws Exception {
        TurnCredential cred = cred(participant);
        return c.allocate(cred.username(), cred.password(), w -> w.attribute(StunAttribute.REQUESTED_ADDRESS_FAMILY, V6));
    }

    private static byte[] ip(String s) throws Exception {
        return InetAddress.getByName(s).getAddress();
    }

    @Test
    void ipv6AllocationRelaysToIpv6PeersBothWays() throws Exception {
        InetSocketAddress addr = startDualStack();
        TestTurnClient c = client(addr);
        StunMessage ok = allocate6(c, "v6");
        assertThat(ok.messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        InetSocketAddress relayed = ok.xorAddress(StunAttribute.XOR_RELAYED_ADDRESS);
        assertThat(relayed.getAddress()).isEqualTo(InetAddress.getByName("::1"));

        DatagramSocket peer = peer("::1");
        InetAddress peerIp = InetAddress.getByName("::1");
        assertThat(c.createPermission(peerIp).messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        c.sendIndication(ip("::1"), peer.getLocalPort(), bytes("six out"));
        DatagramPacket got = receivePacket(peer);
        assertThat(text(got)).isEqualTo("six out");
        assertThat(got.getSocketAddress()).isEqualTo(relayed);

        peer.send(new DatagramPacket(bytes("six in"), 6, relayed));
        StunMessage data = StunMessage.parse(Unpooled.wrappedBuffer(c.receive(1500)));
        assertThat(data.method()).isEqualTo(StunMethod.DATA);
        assertThat(new String(data.bytes(StunAttribute.DATA), StandardCharsets.UTF_8)).isEqualTo("six in");
        assertThat(data.xorAddress(StunAttribute.XOR_PEER_ADDRESS)).isEqualTo(new InetSocketAddress(peerIp, peer.getLocalPort()));

        assertThat(c.channelBind(0x4002, ip("::1"), peer.getLocalPort()).messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        c.sendChannelData(0x4002, bytes("six channel"));
        assertThat(receive(peer)).isEqualTo("six channel");
        peer.send(new DatagramPacket(bytes("six back"), 8, relayed));
        byte[] frame = c.receive(1500);
        assertThat(((frame[0] & 0xFF) << 8) | (frame[1] & 0xFF)).isEqualTo(0x4002);
        assertThat(new String(frame, 4, frame.length - 4, StandardCharsets.UTF_8)).isEqualTo("six back");
        assertThat(server.metrics().packetsClientToPeer.sum()).isEqualTo(2);
        assertThat(server.metrics().packetsPeerToClient.sum()).isEqualTo(2);
    }

    @Test
    void peersOfTheOtherFamilyGet443OnEveryPath() throws Exception {
        InetSocketAddress addr = startDualStack();
        DatagramSocket peer4 = peer("127.0.0.1");
        DatagramSocket peer6 = peer("::1");

        TestTurnClient six = client(addr);
        assertThat(allocate6(six, "six").messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        for (String v4 : List.of("127.0.0.1", "::ffff:127.0.0.1")) { // the mapped spelling is IPv4 too
            assertThat(six.createPermission(ip(v4)).errorCode()).as("CreatePermission %s", v4).isEqualTo(443);
            assertThat(six.channelBind(0x4001, ip(v4), peer4.getLocalPort()).errorCode()).as("ChannelBind %s", v4).isEqualTo(443);
        }
        six.sendIndication(ip("127.0.0.1"), peer4.getLocalPort(), bytes("wrong family"));

        TestTurnClient four = client(addr);
        TurnCredential cred = cred("four");
        StunMessage ok = four.allocate(cred.username(), cred.password());
        assertThat(ok.xorAddress(StunAttribute.XOR_RELAYED_ADDRESS).getAddress().getHostAddress()).isEqualTo("127.0.0.1");
        assertThat(four.createPermission(ip("::1")).errorCode()).isEqualTo(443);
        assertThat(four.channelBind(0x4001, ip("::1"), peer6.getLocalPort()).errorCode()).isEqualTo(443);
        four.sendIndication(ip("::1"), peer6.getLocalPort(), bytes("wrong family"));

        assertThat(receivePacket(peer4)).as("nothing relayed to the IPv4 peer").isNull();
        assertThat(receivePacket(peer6)).as("nothing relayed to the IPv6 peer").isNull();
    }

    @Test
    void ipv6PeersStillNeedTheAllowList() throws Exception {
        InetSocketAddress addr = start(Map.of("PARLEY_TURN_RELAY_ADDRESS6", "::1")); // allow list: 127.0.0.1/32 only
        TestTurnClient c = client(addr);
        assertThat(allocate6(c, "v6").messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        assertThat(c.createPermission(ip("::1")).errorCode()).isEqualTo(403);
        assertThat(c.channelBind(0x4001, ip("::1"), 5000).errorCode()).isEqualTo(403);
    }

    @Test
    void withoutAnIpv6RelayAddressIpv6AndUnknownFamiliesGet440() throws Exception {
        InetSocketAddress addr = start(Map.of());
        assertThat(allocate6(client(addr), "no-v6").errorCode()).isEqualTo(440);
        TurnCredential cred = cred("odd");
        StunMessage odd = client(addr).allocate(cred.username(), cred.password(),
                w -> w.attribute(StunAttribute.REQUESTED_ADDRESS_FAMILY, new byte[] {0x03, 0, 0, 0}));
        assertThat(odd.errorCode()).isEqualTo(440);
        assertThat(server.table().size()).isZero();
    }

    private static String text(DatagramPacket p) {
        return p == null ? null : new String(p.getData(), 0, p.getLength(), StandardCharsets.UTF_8);
    }
}
