package dev.parley.turn.server;

import dev.parley.media.stun.StunAttribute;
import dev.parley.media.stun.StunClass;
import dev.parley.media.stun.StunMessage;
import dev.parley.media.stun.StunMessageWriter;
import dev.parley.media.stun.TurnTcp;
import dev.parley.platform.turn.TurnCredential;
import dev.parley.turn.config.TurnConfig;
import dev.parley.turn.metrics.TurnMetrics;
import dev.parley.turn.metrics.TurnMetrics.PeerPath;
import dev.parley.turn.support.TestSockets;
import dev.parley.turn.support.TestTurnClient;
import dev.parley.turn.support.TurnFixture;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static dev.parley.turn.support.TurnFixture.SECRET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * RFC 6062 TCP allocations end to end over loopback: a real TCP echo peer, a client written against the codec
 * (Connect, ConnectionAttempt, ConnectionBind on a second connection, then raw bytes), and the refusals.
 */
class TcpAllocationTest {
    private final TestSockets sockets = new TestSockets();
    private TurnServer server;
    private TurnMetrics metrics;
    private EchoPeer echo;

    private InetSocketAddress start(Map<String, String> overrides) throws Exception {
        TurnConfig config = TurnFixture.config(overrides);
        metrics = new TurnMetrics();
        server = new TurnServer(config, metrics, System::currentTimeMillis).start();
        return new InetSocketAddress("127.0.0.1", server.port());
    }

    @AfterEach
    void stop() throws Exception {
        sockets.close();
        if (echo != null) {
            echo.close();
        }
        if (server != null) {
            server.stop();
        }
    }

    private static TurnCredential cred(String participant) {
        return TurnFixture.credential(SECRET, participant, Duration.ofHours(1));
    }

    private TestTurnClient control(InetSocketAddress server, TurnCredential cred) throws Exception {
        TestTurnClient c = sockets.track(TestTurnClient.tcp(server));
        StunMessage ok = c.allocateTransport(cred.username(), cred.password(), TurnTcp.PROTOCOL_TCP);
        assertThat(ok.messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        return c;
    }

    private static StunMessage connect(TestTurnClient c, InetSocketAddress peer) throws Exception {
        return c.transact(c.request(TurnTcp.CONNECT, TestTurnClient.txid(), true,
                w -> w.address(StunAttribute.XOR_PEER_ADDRESS, peer.getAddress().getAddress(), peer.getPort(), true)));
    }

    /** A new data connection that sends ConnectionBind for {@code id} with {@code cred}; returns it and the answer. */
    private record Bound(TestTurnClient data, StunMessage answer) {
    }

    private Bound connectionBind(InetSocketAddress server, TurnCredential cred, long id) throws Exception {
        TestTurnClient d = sockets.track(TestTurnClient.tcp(server));
        d.credentials(cred.username(), cred.password());
        java.util.function.Consumer<StunMessageWriter> body = w -> w.uint32(TurnTcp.CONNECTION_ID, id);
        return new Bound(d, d.transactWithNonce(TurnTcp.CONNECTION_BIND, body));
    }

    private static void write(Socket s, String text) throws IOException {
        s.getOutputStream().write(text.getBytes(StandardCharsets.UTF_8));
        s.getOutputStream().flush();
    }

    /** Reads exactly {@code n} bytes as text, or what came before the timeout/EOF. */
    private static String read(Socket s, int n) throws IOException {
        s.setSoTimeout(2000);
        InputStream in = s.getInputStream();
        byte[] b = new byte[n];
        int got = 0;
        try {
            while (got < n) {
                int r = in.read(b, got, n - got);
                if (r < 0) {
                    break;
                }
                got += r;
            }
        } catch (SocketTimeoutException e) {
            // return what arrived
        }
        return new String(b, 0, got, StandardCharsets.UTF_8);
    }

    /** True if the other end closed {@code s} within two seconds (read returns EOF or reset). */
    private static boolean closedByOtherEnd(Socket s) throws IOException {
        s.setSoTimeout(2000);
        try {
            return s.getInputStream().read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    @Test
    void connectThenConnectionBindRelaysRawBytesBothWaysFromTheRelayedAddress() throws Exception {
        InetSocketAddress addr = start(Map.of());
        echo = new EchoPeer();
        TurnCredential cred = cred("tcp-alice");
        TestTurnClient c = sockets.track(TestTurnClient.tcp(addr));
        StunMessage ok = c.allocateTransport(cred.username(), cred.password(), TurnTcp.PROTOCOL_TCP);
        assertThat(ok.messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        InetSocketAddress relayed = ok.xorAddress(StunAttribute.XOR_RELAYED_ADDRESS);

        StunMessage connected = connect(c, echo.address());
        assertThat(connected.messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        long id = connected.uint32(TurnTcp.CONNECTION_ID, -1);
        assertThat(id).isNotEqualTo(-1);
        // the peer sees the relayed address as the connection's source
        await().atMost(Duration.ofSeconds(2)).until(() -> !echo.remotes.isEmpty());
        assertThat(echo.remotes.get(0)).isEqualTo(relayed);

        Bound b = connectionBind(addr, cred, id);
        assertThat(b.answer().messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        Socket data = b.data().socket();
        write(data, "hello over a tcp relay");
        assertThat(read(data, 22)).isEqualTo("hello over a tcp relay");
        byte[] big = new byte[256 * 1024]; // more than one read and socket buffer: back-pressure both ways
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) ('a' + i % 26);
        }
        Thread writer = Thread.ofVirtual().start(() -> {
            try {
                data.getOutputStream().write(big);
                data.getOutputStream().flush();
            } catch (IOException ignored) {
                // the assertion below fails
            }
        });
        assertThat(read(data, big.length)).isEqualTo(new String(big, StandardCharsets.UTF_8));
        writer.join();
        assertThat(metrics.tcpPeerConnections.sum()).isEqualTo(1);

        // a second Connect to the same peer while the first is active: 446
        assertThat(connect(c, echo.address()).errorCode()).isEqualTo(TurnTcp.CONNECTION_ALREADY_EXISTS);
        // the same CONNECTION-ID cannot be bound twice
        assertThat(connectionBind(addr, cred, id).answer().errorCode()).isEqualTo(400);

        // the allocation ends with its control connection: the data connection and the peer's are closed
        c.close();
        assertThat(closedByOtherEnd(data)).isTrue();
        await().atMost(Duration.ofSeconds(3)).until(() -> server.table().size() == 0 && echo.open() == 0);
        assertThat(server.table().ports().inUse()).isZero();
    }

    @Test
    void inboundPeerConnectionsNeedAPermissionAndAreAnnouncedWithConnectionAttempt() throws Exception {
        InetSocketAddress addr = start(Map.of());
        TurnCredential cred = cred("tcp-bob");
        TestTurnClient c = sockets.track(TestTurnClient.tcp(addr));
        InetSocketAddress relayed = c.allocateTransport(cred.username(), cred.password(), TurnTcp.PROTOCOL_TCP)
                .xorAddress(StunAttribute.XOR_RELAYED_ADDRESS);

        // no permission: the server closes the peer's connection at once and tells the client nothing
        Socket early = sockets.track(new Socket());
        early.connect(relayed, 2000);
        assertThat(closedByOtherEnd(early)).isTrue();
        assertThat(c.receive(300)).isNull();

        assertThat(c.createPermission(InetAddress.getByName("127.0.0.1")).messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        Socket peer = sockets.track(new Socket());
        peer.connect(relayed, 2000);
        write(peer, "sent before the bind"); // buffered until the client binds the connection
        StunMessage attempt = StunMessage.parse(Unpooled.wrappedBuffer(c.receive(2000)));
        assertThat(attempt.method()).isEqualTo(TurnTcp.CONNECTION_ATTEMPT);
        assertThat(attempt.messageClass()).isEqualTo(StunClass.INDICATION);
        assertThat(attempt.xorAddress(StunAttribute.XOR_PEER_ADDRESS)).isEqualTo(peer.getLocalSocketAddress());
        long id = attempt.uint32(TurnTcp.CONNECTION_ID, -1);

        // another user's credentials cannot bind it
        TurnCredential mallory = cred("tcp-mallory");
        assertThat(connectionBind(addr, mallory, id).answer().errorCode()).isEqualTo(441);

        Bound b = connectionBind(addr, cred, id);
        assertThat(b.answer().messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        Socket data = b.data().socket();
        assertThat(read(data, 20)).isEqualTo("sent before the bind");
        write(data, "client to peer");
        assertThat(read(peer, 14)).isEqualTo("client to peer");
        // the peer hangs up: the client's data connection is closed, the allocation stays
        peer.close();
        assertThat(closedByOtherEnd(data)).isTrue();
        assertThat(server.table().size()).isEqualTo(1);
    }

    @Test
    void connectIsRefusedForDeniedPeersDuplicatesAndUnreachablePeers() throws Exception {
        InetSocketAddress addr = start(Map.of());
        TurnCredential cred = cred("tcp-carol");
        TestTurnClient c = control(addr, cred);
        // denied ranges, whatever the spelling: loopback outside the allow list, metadata, private, IPv4-mapped
        for (String denied : List.of("127.0.0.2", "169.254.169.254", "10.0.0.1", "192.168.1.1", "0.0.0.0")) {
            assertThat(connect(c, new InetSocketAddress(InetAddress.getByName(denied), 80)).errorCode())
                    .as(denied).isEqualTo(403);
        }
        byte[] metadataMapped = mappedV6("169.254.169.254");
        StunMessage mapped = c.transact(c.request(TurnTcp.CONNECT, TestTurnClient.txid(), true,
                w -> w.address(StunAttribute.XOR_PEER_ADDRESS, metadataMapped, 80, true)));
        assertThat(mapped.errorCode()).isEqualTo(403);
        // this server's own listener: 403 (no relaying into ourselves)
        assertThat(connect(c, addr).errorCode()).isEqualTo(403);
        assertThat(metrics.deniedPeers(PeerPath.CONNECT)).isGreaterThanOrEqualTo(6);

        // nobody listens there: 447
        int closedPort = TurnFixture.freePort();
        assertThat(connect(c, new InetSocketAddress("127.0.0.1", closedPort)).errorCode())
                .isEqualTo(TurnTcp.CONNECTION_TIMEOUT_OR_FAILURE);
        assertThat(metrics.tcpConnectFailures.sum()).isEqualTo(1);
        // an unknown CONNECTION-ID: 400
        assertThat(connectionBind(addr, cred, 12345).answer().errorCode()).isEqualTo(400);
        // ConnectionBind on the control connection (it has an allocation): 400
        assertThat(c.transact(c.request(TurnTcp.CONNECTION_BIND, TestTurnClient.txid(), true,
                w -> w.uint32(TurnTcp.CONNECTION_ID, 1))).errorCode()).isEqualTo(400);
        // no channels on a TCP allocation
        assertThat(c.channelBind(0x4001, new byte[] {127, 0, 0, 1}, 9).errorCode()).isEqualTo(400);

        // Connect on a UDP allocation: 400
        TestTurnClient u = sockets.udpClient(addr);
        TurnCredential dave = cred("tcp-dave");
        assertThat(u.allocate(dave.username(), dave.password()).messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        assertThat(connect(u, new InetSocketAddress("127.0.0.1", closedPort)).errorCode()).isEqualTo(400);
    }

    @Test
    void aPeerConnectionWithoutConnectionBindIsClosedAfterTheTimeout() throws Exception {
        InetSocketAddress addr = start(Map.of("PARLEY_TURN_TCP_BIND_TIMEOUT_SECONDS", "1"));
        echo = new EchoPeer();
        TurnCredential cred = cred("tcp-erin");
        TestTurnClient c = control(addr, cred);
        StunMessage connected = connect(c, echo.address());
        long id = connected.uint32(TurnTcp.CONNECTION_ID, -1);
        await().atMost(Duration.ofSeconds(2)).until(() -> echo.open() == 1);
        await().atMost(Duration.ofSeconds(4)).until(() -> metrics.tcpBindTimeouts.sum() == 1);
        await().atMost(Duration.ofSeconds(2)).until(() -> echo.open() == 0);
        assertThat(connectionBind(addr, cred, id).answer().errorCode()).isEqualTo(400);
        // the peer may be connected to again
        assertThat(connect(c, echo.address()).messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
    }

    private static byte[] mappedV6(String v4) throws IOException {
        byte[] a = InetAddress.getByName(v4).getAddress();
        byte[] m = new byte[16];
        m[10] = (byte) 0xFF;
        m[11] = (byte) 0xFF;
        System.arraycopy(a, 0, m, 12, 4);
        return m;
    }

    /** A TCP echo server on loopback: the peer. Records where connections came from and how many are open. */
    static final class EchoPeer implements AutoCloseable {
        final ServerSocket listener;
        final List<InetSocketAddress> remotes = new CopyOnWriteArrayList<>();
        private final List<Socket> accepted = new CopyOnWriteArrayList<>();

        EchoPeer() throws IOException {
            listener = new ServerSocket(0, 16, InetAddress.getByName("127.0.0.1"));
            Thread.ofVirtual().start(this::acceptLoop);
        }

        InetSocketAddress address() {
            return new InetSocketAddress("127.0.0.1", listener.getLocalPort());
        }

        /** Connections not yet closed by the other side. */
        long open() {
            return accepted.stream().filter(s -> !s.isClosed()).count();
        }

        private void acceptLoop() {
            while (!listener.isClosed()) {
                try {
                    Socket s = listener.accept();
                    remotes.add((InetSocketAddress) s.getRemoteSocketAddress());
                    accepted.add(s);
                    Thread.ofVirtual().start(() -> echo(s));
                } catch (IOException e) {
                    return;
                }
            }
        }

        private static void echo(Socket s) {
            try (s) {
                byte[] buf = new byte[16384];
                InputStream in = s.getInputStream();
                for (int n; (n = in.read(buf)) > 0; ) {
                    s.getOutputStream().write(buf, 0, n);
                }
            } catch (IOException e) {
                // peer reset: done
            }
        }

        @Override
        public void close() throws IOException {
            listener.close();
            for (Socket s : accepted) {
                s.close();
            }
        }
    }
}
