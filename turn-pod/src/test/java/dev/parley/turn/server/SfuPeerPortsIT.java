package dev.parley.turn.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.media.stun.StunAttribute;
import dev.parley.media.stun.StunClass;
import dev.parley.media.stun.StunMessage;
import dev.parley.media.stun.StunMethod;
import dev.parley.media.stun.TurnTcp;
import dev.parley.platform.etcd.EtcdKeys;
import dev.parley.platform.etcd.SfuEntry;
import dev.parley.platform.turn.TurnCredential;
import dev.parley.turn.TurnPod;
import dev.parley.turn.metrics.TurnMetrics.PeerPath;
import dev.parley.turn.support.EtcdProcess;
import dev.parley.turn.support.TestSockets;
import dev.parley.turn.support.TestTurnClient;
import dev.parley.turn.support.TurnFixture;
import io.etcd.jetcd.Client;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static dev.parley.turn.support.TestSockets.bytes;
import static dev.parley.turn.support.TestSockets.receive;
import static dev.parley.turn.support.TurnFixture.SECRET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The relay reaches the SFUs' media ports as the SFUs publish them in etcd, and nothing else on their addresses: the
 * local-mode set-up (etcd, an SFU on loopback, {@code PARLEY_TURN_ALLOWED_PEERS=127.0.0.1/32}) against a listening TCP
 * socket standing in for PostgreSQL, etcd's own client port, and UDP/TCP ports the SFU did not publish. Registry
 * changes (an SFU joining, leaving) are followed.
 */
class SfuPeerPortsIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String REGION = "peer-test";
    private final TestSockets sockets = new TestSockets();
    private EtcdProcess etcd;
    private Client client;
    private TurnPod pod;
    private TcpAllocationTest.EchoPeer sfuIceTcp;
    private DatagramSocket sfuMedia;
    private ServerSocket postgres;

    @BeforeEach
    void start() throws Exception {
        assumeTrue(Files.isExecutable(EtcdProcess.BINARY), "etcd not installed");
        etcd = new EtcdProcess();
        client = Client.builder().endpoints(etcd.endpoint()).build();
        sfuIceTcp = new TcpAllocationTest.EchoPeer();
        sfuMedia = sockets.peer("127.0.0.1");
        postgres = sockets.track(new ServerSocket(0, 16, java.net.InetAddress.getByName("127.0.0.1")));
        registerSfu("sfu-0", sfuMedia.getLocalPort(), sfuIceTcp.address().getPort());
        pod = new TurnPod(TurnFixture.config(Map.of("PARLEY_ETCD_ENDPOINTS", etcd.endpoint(), "PARLEY_REGION", REGION,
                "PARLEY_TURN_ALLOWED_PEERS", "127.0.0.1/32")), System::currentTimeMillis).start();
        await().atMost(Duration.ofSeconds(10)).until(pod::ready);
    }

    @AfterEach
    void stop() throws Exception {
        sockets.close();
        if (pod != null) {
            pod.close();
        }
        if (sfuIceTcp != null) {
            sfuIceTcp.close();
        }
        if (client != null) {
            client.close();
        }
        if (etcd != null) {
            etcd.close();
        }
    }

    /** What an SFU pod writes (platform-core's SfuEntry), without a lease: the test removes it itself. */
    private void registerSfu(String pod, int udpPort, int tcpPort) throws Exception {
        SfuEntry e = new SfuEntry(pod, REGION, SfuEntry.ACTIVE, "http://127.0.0.1:1", "127.0.0.1", udpPort, tcpPort,
                SfuEntry.SfuLoad.idle(), System.currentTimeMillis());
        client.getKVClient().put(EtcdKeys.bytes(EtcdKeys.sfu(REGION, pod)), EtcdKeys.bytes(JSON.writeValueAsString(e)))
                .get(5, TimeUnit.SECONDS);
    }

    private void unregisterSfu(String pod) throws Exception {
        client.getKVClient().delete(EtcdKeys.bytes(EtcdKeys.sfu(REGION, pod))).get(5, TimeUnit.SECONDS);
    }

    private InetSocketAddress turn() {
        return new InetSocketAddress("127.0.0.1", pod.server().port());
    }

    private static TurnCredential cred(String participant) {
        return TurnFixture.credential(SECRET, participant, Duration.ofHours(1));
    }

    private static StunMessage connect(TestTurnClient c, int port) throws Exception {
        return c.transact(c.request(TurnTcp.CONNECT, TestTurnClient.txid(), true,
                w -> w.address(StunAttribute.XOR_PEER_ADDRESS, new byte[] {127, 0, 0, 1}, port, true)));
    }

    private static StunMessage createPermission(TestTurnClient c, int port) throws Exception {
        return c.transact(c.request(StunMethod.CREATE_PERMISSION, TestTurnClient.txid(), true,
                w -> w.address(StunAttribute.XOR_PEER_ADDRESS, new byte[] {127, 0, 0, 1}, port, true)));
    }

    private static int etcdClientPort(String endpoint) {
        return Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
    }

    @Test
    void tcpConnectReachesTheSfuIceTcpPortAndNoOtherPortOfItsAddress() throws Exception {
        TestTurnClient c = sockets.track(TestTurnClient.tcp(turn()));
        TurnCredential cred = cred("tcp-mallory");
        assertThat(c.allocateTransport(cred.username(), cred.password(), TurnTcp.PROTOCOL_TCP).messageClass())
                .isEqualTo(StunClass.SUCCESS_RESPONSE);
        // a listening TCP socket on the SFU's address (PostgreSQL's stand-in), etcd's client port, the SFU's UDP port
        assertThat(connect(c, postgres.getLocalPort()).errorCode()).as("PostgreSQL stand-in").isEqualTo(403);
        assertThat(connect(c, etcdClientPort(etcd.endpoint())).errorCode()).as("etcd client port").isEqualTo(403);
        assertThat(connect(c, sfuMedia.getLocalPort()).errorCode()).as("the SFU's UDP port over TCP").isEqualTo(403);
        assertThat(pod.server().metrics().deniedPeers(PeerPath.CONNECT)).isEqualTo(3);
        // the SFU's published ICE-TCP port: connected
        StunMessage ok = connect(c, sfuIceTcp.address().getPort());
        assertThat(ok.messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        assertThat(ok.find(TurnTcp.CONNECTION_ID)).isGreaterThanOrEqualTo(0);
        await().atMost(Duration.ofSeconds(3)).until(() -> sfuIceTcp.remotes.size() == 1);
    }

    @Test
    void udpPermissionsChannelsAndSendsReachOnlyTheSfuMediaPort() throws Exception {
        TestTurnClient c = sockets.udpClient(turn());
        TurnCredential cred = cred("udp-mallory");
        assertThat(c.allocate(cred.username(), cred.password()).messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        DatagramSocket other = sockets.peer("127.0.0.1"); // a UDP service on the SFU's address that it did not publish
        assertThat(createPermission(c, other.getLocalPort()).errorCode()).isEqualTo(403);
        assertThat(createPermission(c, sfuIceTcp.address().getPort()).errorCode()).as("the ICE-TCP port over UDP").isEqualTo(403);
        assertThat(c.channelBind(0x4001, new byte[] {127, 0, 0, 1}, other.getLocalPort()).errorCode()).isEqualTo(403);
        assertThat(pod.server().metrics().deniedPeers(PeerPath.CREATE_PERMISSION)).isEqualTo(2);
        assertThat(pod.server().metrics().deniedPeers(PeerPath.CHANNEL_BIND)).isEqualTo(1);

        assertThat(createPermission(c, sfuMedia.getLocalPort()).messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        c.sendIndication(new byte[] {127, 0, 0, 1}, sfuMedia.getLocalPort(), bytes("to-sfu"));
        assertThat(receive(sfuMedia)).isEqualTo("to-sfu");
        // the permission is per IP, the port is still checked: a Send to another port of the address is dropped
        c.sendIndication(new byte[] {127, 0, 0, 1}, other.getLocalPort(), bytes("to-other"));
        assertThat(receive(other)).isNull();
        assertThat(pod.server().metrics().deniedPeers(PeerPath.SEND)).isEqualTo(1);
        // and what the other port sends to the relayed address is not delivered
        InetSocketAddress relayed = pod.server().table().all().iterator().next().relayedAddress();
        other.send(new java.net.DatagramPacket(bytes("from-other"), 10, relayed));
        assertThat(c.receive(500)).isNull();
        assertThat(c.channelBind(0x4002, new byte[] {127, 0, 0, 1}, sfuMedia.getLocalPort()).messageClass())
                .isEqualTo(StunClass.SUCCESS_RESPONSE);
    }

    @Test
    void sfusJoiningAndLeavingTheRegistryOpenAndCloseTheirPorts() throws Exception {
        TestTurnClient c = sockets.udpClient(turn());
        TurnCredential cred = cred("udp-joiner");
        assertThat(c.allocate(cred.username(), cred.password()).messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        DatagramSocket second = sockets.peer("127.0.0.1");
        assertThat(createPermission(c, second.getLocalPort()).errorCode()).isEqualTo(403);

        registerSfu("sfu-1", second.getLocalPort(), 0);
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(100))
                .until(() -> createPermission(c, second.getLocalPort()).messageClass() == StunClass.SUCCESS_RESPONSE);
        c.sendIndication(new byte[] {127, 0, 0, 1}, second.getLocalPort(), bytes("joined"));
        assertThat(receive(second)).isEqualTo("joined");

        assertThat(c.channelBind(0x4001, new byte[] {127, 0, 0, 1}, second.getLocalPort()).messageClass())
                .isEqualTo(StunClass.SUCCESS_RESPONSE);
        c.sendChannelData(0x4001, bytes("channel"));
        assertThat(receive(second)).isEqualTo("channel");

        unregisterSfu("sfu-1");
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(100))
                .until(() -> createPermission(c, second.getLocalPort()).errorCode() == 403);
        c.sendIndication(new byte[] {127, 0, 0, 1}, second.getLocalPort(), bytes("left"));
        assertThat(receive(second)).isNull();
        // what was granted while it was registered goes too (its address may be given to another pod): the channel
        await().atMost(Duration.ofSeconds(5)).until(() -> pod.server().table().channelCount() == 0);
        c.sendChannelData(0x4001, bytes("stale channel"));
        assertThat(receive(second)).isNull();
        // sfu-0 is still there
        assertThat(createPermission(c, sfuMedia.getLocalPort()).messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
    }

    @Test
    void tcpConnectionsToAnSfuThatLeftAreClosed() throws Exception {
        try (TcpAllocationTest.EchoPeer secondIceTcp = new TcpAllocationTest.EchoPeer()) {
            registerSfu("sfu-2", 0, secondIceTcp.address().getPort());
            TestTurnClient c = sockets.track(TestTurnClient.tcp(turn()));
            TurnCredential cred = cred("tcp-leaver");
            assertThat(c.allocateTransport(cred.username(), cred.password(), TurnTcp.PROTOCOL_TCP).messageClass())
                    .isEqualTo(StunClass.SUCCESS_RESPONSE);
            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(100))
                    .until(() -> connect(c, secondIceTcp.address().getPort()).messageClass() == StunClass.SUCCESS_RESPONSE);
            await().atMost(Duration.ofSeconds(3)).until(() -> secondIceTcp.open() == 1);
            unregisterSfu("sfu-2");
            await().atMost(Duration.ofSeconds(5)).until(() -> secondIceTcp.open() == 0);
        }
    }
}
