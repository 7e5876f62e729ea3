package dev.parley.turn.server;

import dev.parley.media.stun.ChannelData;
import dev.parley.media.stun.StunAttribute;
import dev.parley.media.stun.StunClass;
import dev.parley.media.stun.StunMessage;
import dev.parley.media.stun.StunMethod;
import dev.parley.platform.turn.TurnCredential;
import dev.parley.platform.turn.TurnCredentials;
import dev.parley.platform.turn.TurnSecrets;
import dev.parley.turn.allocation.Allocation;
import dev.parley.turn.config.TurnConfig;
import dev.parley.turn.metrics.TurnMetrics;
import dev.parley.turn.metrics.TurnMetrics.AuthFailure;
import dev.parley.turn.metrics.TurnMetrics.PeerPath;
import dev.parley.turn.peer.PeerPolicyTest;
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
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static dev.parley.turn.support.TestSockets.bytes;
import static dev.parley.turn.support.TestSockets.receive;
import static dev.parley.turn.support.TestSockets.receivePacket;
import static dev.parley.turn.support.TurnFixture.SECRET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The relay end to end over real loopback sockets, driven by a client built on the codec (not on the server). */
class TurnServerTest {
    private final AtomicLong clock = new AtomicLong(System.currentTimeMillis());
    private final TestSockets sockets = new TestSockets();
    private TurnServer server;
    private TurnMetrics metrics;

    private InetSocketAddress start(Map<String, String> overrides) throws Exception {
        return start(overrides, true);
    }

    private InetSocketAddress start(Map<String, String> overrides, boolean epoll) throws Exception {
        TurnConfig config = TurnFixture.config(overrides);
        metrics = new TurnMetrics();
        server = new TurnServer(config, metrics, clock::get, epoll).start();
        return new InetSocketAddress("127.0.0.1", server.port());
    }

    @Test
    void nioFallbackRelaysToo() throws Exception {
        InetSocketAddress addr = start(Map.of(), false);
        assertThat(server.epoll()).isFalse();
        TestTurnClient c = udpClient(addr);
        TurnCredential cred = cred("nio");
        InetSocketAddress relayed = c.allocate(cred.username(), cred.password()).xorAddress(StunAttribute.XOR_RELAYED_ADDRESS);
        DatagramSocket peer = peer("127.0.0.1");
        assertThat(c.channelBind(0x4001, ip("127.0.0.1"), peer.getLocalPort()).messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        c.sendChannelData(0x4001, bytes("nio out"));
        assertThat(receive(peer)).isEqualTo("nio out");
        peer.send(new DatagramPacket(bytes("nio in"), 6, relayed));
        byte[] frame = c.receive(1500);
        assertThat(new String(frame, 4, frame.length - 4, StandardCharsets.UTF_8)).isEqualTo("nio in");
    }

    @Test
    void coalescingLoopsRelayBothWays() throws Exception {
        relaysChannelDataBothWays("2000"); // 2 ms windows: every hop waits for the loop's next poll
    }

    @Test
    void plainBlockingLoopsRelayBothWays() throws Exception {
        relaysChannelDataBothWays("0");
    }

    private void relaysChannelDataBothWays(String coalesceMicros) throws Exception {
        InetSocketAddress addr = start(Map.of("PARLEY_TURN_COALESCE_MICROS", coalesceMicros));
        assertThat(server.epoll()).isTrue();
        TestTurnClient c = udpClient(addr);
        TurnCredential cred = cred("coalesce");
        InetSocketAddress relayed = c.allocate(cred.username(), cred.password()).xorAddress(StunAttribute.XOR_RELAYED_ADDRESS);
        DatagramSocket peer = peer("127.0.0.1");
        assertThat(c.channelBind(0x4001, ip("127.0.0.1"), peer.getLocalPort()).messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        for (int i = 0; i < 20; i++) {
            c.sendChannelData(0x4001, bytes("out " + i));
            assertThat(receive(peer)).isEqualTo("out " + i);
            peer.send(new DatagramPacket(bytes("in " + i), ("in " + i).length(), relayed));
            byte[] frame = c.receive(1500);
            assertThat(new String(frame, 4, frame.length - 4, StandardCharsets.UTF_8)).isEqualTo("in " + i);
        }
        assertThat(metrics.packetsClientToPeer.sum()).isEqualTo(20);
    }

    @Test
    void dontFragmentSetsDfOnTheRelaySocketUnderEpoll() throws Exception {
        InetSocketAddress addr = start(Map.of());
        assertThat(server.epoll()).isTrue();
        DatagramSocket peer = peer("127.0.0.1");
        TestTurnClient df = udpClient(addr);
        TurnCredential cred = cred("frank");
        StunMessage ok = df.allocate(cred.username(), cred.password(), w -> w.flag(StunAttribute.DONT_FRAGMENT));
        assertThat(ok.messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        TestTurnClient plain = udpClient(addr);
        assertThat(plain.allocate(cred.username(), cred.password()).messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        Allocation dfAlloc = server.table().udp(df.localAddress());
        Allocation plainAlloc = server.table().udp(plain.localAddress());
        // the kernel holds IP_PMTUDISC_DO on the DF allocation's relay socket only
        assertThat(dfAlloc.relay().config().getOption(Transport.IP_MTU_DISCOVER)).isEqualTo(Transport.PMTUDISC_DO);
        assertThat(plainAlloc.relay().config().getOption(Transport.IP_MTU_DISCOVER)).isNotEqualTo(Transport.PMTUDISC_DO);
        assertThat(df.createPermission(ip("127.0.0.1")).messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        assertThat(plain.createPermission(ip("127.0.0.1")).messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        // Send with DONT-FRAGMENT: relayed from the DF allocation, dropped (and counted) from the other
        plain.sendIndication(ip("127.0.0.1"), peer.getLocalPort(), bytes("no df"), true);
        df.sendIndication(ip("127.0.0.1"), peer.getLocalPort(), bytes("with df"), true);
        assertThat(receive(peer)).isEqualTo("with df");
        await().atMost(Duration.ofSeconds(5)).until(() -> metrics.dontFragmentDropped.sum() == 1);
        plain.sendIndication(ip("127.0.0.1"), peer.getLocalPort(), bytes("plain"), false);
        assertThat(receive(peer)).isEqualTo("plain");
    }

    @Test
    void dontFragmentIsUnknownWithoutEpoll() throws Exception {
        InetSocketAddress addr = start(Map.of(), false);
        TestTurnClient c = udpClient(addr);
        TurnCredential cred = cred("nio-df");
        c.challenge(cred.username(), cred.password());
        StunMessage r420 = c.transact(c.request(StunMethod.ALLOCATE, TestTurnClient.txid(), true,
                w -> w.requestedTransport(17).flag(StunAttribute.DONT_FRAGMENT)));
        assertThat(r420.errorCode()).isEqualTo(420);
        assertThat(r420.unknownAttributes()).containsExactly(StunAttribute.DONT_FRAGMENT);
        assertThat(server.table().size()).isZero();
    }

    private TestTurnClient udpClient(InetSocketAddress addr) throws Exception {
        return sockets.udpClient(addr);
    }

    private DatagramSocket peer(String ip) throws Exception {
        return sockets.peer(ip);
    }

    @AfterEach
    void stop() throws Exception {
        sockets.close();
        if (server != null) {
            server.stop();
        }
    }

    static TurnCredential cred(String participant) {
        return TurnFixture.credential(SECRET, participant, Duration.ofHours(1));
    }

    static byte[] ip(String s) throws Exception {
        return InetAddress.getByName(s).getAddress();
    }

    @Test
    void allocatesAndRelaysSendDataAndChannelDataBothWays() throws Exception {
        InetSocketAddress addr = start(Map.of());
        TestTurnClient c = udpClient(addr);
        TurnCredential cred = cred("alice");
        StunMessage ok = c.allocate(cred.username(), cred.password());
        assertThat(ok.messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        InetSocketAddress relayed = ok.xorAddress(StunAttribute.XOR_RELAYED_ADDRESS);
        assertThat(relayed.getAddress().getHostAddress()).isEqualTo("127.0.0.1");
        assertThat(ok.xorAddress(StunAttribute.XOR_MAPPED_ADDRESS)).isEqualTo(c.localAddress());
        assertThat(ok.uint32(StunAttribute.LIFETIME, 0)).isEqualTo(600);
        assertThat(ok.verifyIntegrity(dev.parley.media.stun.StunIntegrity.longTermKey(cred.username(), "parley", cred.password()))).isTrue();
        assertThat(ok.verifyFingerprint()).isTrue();
        assertThat(server.table().size()).isEqualTo(1);

        DatagramSocket peer = peer("127.0.0.1");
        int peerPort = peer.getLocalPort();
        // no permission yet: Send is dropped
        c.sendIndication(ip("127.0.0.1"), peerPort, bytes("early"));
        assertThat(receive(peer)).isNull();

        assertThat(c.createPermission(InetAddress.getByName("127.0.0.1")).messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        c.sendIndication(ip("127.0.0.1"), peerPort, bytes("hello peer"));
        DatagramPacket got = receivePacket(peer);
        assertThat(new String(got.getData(), 0, got.getLength(), StandardCharsets.UTF_8)).isEqualTo("hello peer");
        assertThat(got.getSocketAddress()).isEqualTo(relayed);

        peer.send(new DatagramPacket(bytes("hello client"), 12, relayed));
        StunMessage data = StunMessage.parse(Unpooled.wrappedBuffer(c.receive(1500)));
        assertThat(data.method()).isEqualTo(StunMethod.DATA);
        assertThat(new String(data.bytes(StunAttribute.DATA), StandardCharsets.UTF_8)).isEqualTo("hello client");
        assertThat(data.xorAddress(StunAttribute.XOR_PEER_ADDRESS)).isEqualTo(new InetSocketAddress("127.0.0.1", peerPort));

        assertThat(c.channelBind(0x4001, ip("127.0.0.1"), peerPort).messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        c.sendChannelData(0x4001, bytes("via channel"));
        assertThat(receive(peer)).isEqualTo("via channel");
        peer.send(new DatagramPacket(bytes("back on channel"), 15, relayed));
        byte[] frame = c.receive(1500);
        assertThat(ChannelData.channel(Unpooled.wrappedBuffer(frame))).isEqualTo(0x4001);
        assertThat(new String(frame, 4, frame.length - 4, StandardCharsets.UTF_8)).isEqualTo("back on channel");

        // unbound channel: dropped
        c.sendChannelData(0x4002, bytes("nobody"));
        assertThat(receive(peer)).isNull();
        assertThat(metrics.packetsClientToPeer.sum()).isEqualTo(2);
        assertThat(metrics.packetsPeerToClient.sum()).isEqualTo(2);

        // binding conflicts: same channel to another peer, or same peer to another channel → 400
        assertThat(c.channelBind(0x4001, ip("127.0.0.1"), peerPort + 1).errorCode()).isEqualTo(400);
        assertThat(c.channelBind(0x4003, ip("127.0.0.1"), peerPort).errorCode()).isEqualTo(400);
        assertThat(c.channelBind(0x3fff, ip("127.0.0.1"), peerPort).errorCode()).isEqualTo(400);

        assertThat(c.refresh(0).uint32(StunAttribute.LIFETIME, -1)).isEqualTo(0);
        assertThat(server.table().size()).isZero();
        assertThat(server.table().ports().inUse()).isZero();
    }

    @Test
    void tcpClientRelaysChannelData() throws Exception {
        InetSocketAddress addr = start(Map.of());
        TestTurnClient c = TestTurnClient.tcp(addr);
        sockets.track(c);
        TurnCredential cred = cred("bob");
        StunMessage ok = c.allocate(cred.username(), cred.password());
        assertThat(ok.messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        InetSocketAddress relayed = ok.xorAddress(StunAttribute.XOR_RELAYED_ADDRESS);
        DatagramSocket peer = peer("127.0.0.1");
        assertThat(c.channelBind(0x4abc, ip("127.0.0.1"), peer.getLocalPort()).messageClass())
                .isEqualTo(StunClass.SUCCESS_RESPONSE);
        c.sendChannelData(0x4abc, bytes("odd"));     // 3 bytes: padded on the stream
        c.sendChannelData(0x4abc, bytes("next one"));
        assertThat(receive(peer)).isEqualTo("odd");
        assertThat(receive(peer)).isEqualTo("next one");
        peer.send(new DatagramPacket(bytes("x"), 1, relayed));
        byte[] frame = c.receive(1500);
        assertThat(frame).hasSize(5);
        assertThat(frame[4]).isEqualTo((byte) 'x');
        // closing the connection deletes the allocation
        c.close();
        await().atMost(Duration.ofSeconds(3)).until(() -> server.table().size() == 0);
    }

    @Test
    void deniedPeersAreRefusedOnEveryPath() throws Exception {
        InetSocketAddress addr = start(Map.of());
        TestTurnClient c = udpClient(addr);
        TurnCredential cred = cred("mallory");
        assertThat(c.allocate(cred.username(), cred.password()).messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        ch.qos.logback.classic.Logger deniedLog = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(DeniedPeerLog.class);
        List<Map<String, String>> deniedMdc = new java.util.concurrent.CopyOnWriteArrayList<>();
        ch.qos.logback.core.AppenderBase<ch.qos.logback.classic.spi.ILoggingEvent> capture = new ch.qos.logback.core.AppenderBase<>() {
            @Override
            protected void append(ch.qos.logback.classic.spi.ILoggingEvent e) {
                deniedMdc.add(e.getMDCPropertyMap()); // read on the logging thread, as the encoder does
            }
        };
        capture.setContext(deniedLog.getLoggerContext());
        capture.start();
        deniedLog.addAppender(capture);
        int n = 0;
        for (String s : PeerPolicyTest.DENIED) {
            if (s.equals("127.0.0.1") || s.equals("::ffff:127.0.0.1")) {
                continue; // explicitly allowed in this configuration (local mode)
            }
            n++;
            byte[] raw = ip(s);
            assertThat(c.createPermission(raw).errorCode()).as("CreatePermission %s", s).isEqualTo(403);
            assertThat(c.channelBind(0x4000 + n, raw, 5000).errorCode()).as("ChannelBind %s", s).isEqualTo(403);
            c.sendIndication(raw, 5000, bytes("x"));
        }
        int denied = n;
        await().atMost(Duration.ofSeconds(2)).until(() -> metrics.deniedPeers(PeerPath.SEND) == denied);
        assertThat(metrics.deniedPeers(PeerPath.CREATE_PERMISSION)).isEqualTo(denied);
        assertThat(metrics.deniedPeers(PeerPath.CHANNEL_BIND)).isEqualTo(denied);
        assertThat(server.table().permissionCount()).isZero();
        assertThat(server.table().channelCount()).isZero();

        // Send to a real socket on 127.0.0.2 (denied) never arrives; inbound from it is dropped too
        DatagramSocket other = peer("127.0.0.2");
        c.sendIndication(ip("127.0.0.2"), other.getLocalPort(), bytes("leak"));
        c.sendIndication(ip("::ffff:127.0.0.2"), other.getLocalPort(), bytes("leak"));
        assertThat(receive(other)).isNull();
        // the relay's own ports and listener are refused even though 127.0.0.1 is allowed
        assertThat(c.channelBind(0x4fff, ip("127.0.0.1"), addr.getPort()).errorCode()).isEqualTo(403);
        assertThat(c.channelBind(0x4ffe, ip("127.0.0.1"), server.config().relayPortMin()).errorCode()).isEqualTo(403);
        deniedLog.detachAppender(capture);
        // the refusal's line names the participant of the TURN REST username as a field (issue #21)
        assertThat(deniedMdc).isNotEmpty().allSatisfy(m -> assertThat(m).containsEntry("participant_id", "mallory"));
    }

    @Test
    void inboundFromDeniedOrUnpermittedPeersIsDropped() throws Exception {
        InetSocketAddress addr = start(Map.of());
        TestTurnClient c = udpClient(addr);
        TurnCredential cred = cred("carol");
        InetSocketAddress relayed = c.allocate(cred.username(), cred.password()).xorAddress(StunAttribute.XOR_RELAYED_ADDRESS);
        DatagramSocket denied = peer("127.0.0.2");
        denied.send(new DatagramPacket(bytes("in"), 2, relayed));
        DatagramSocket noPermission = peer("127.0.0.1");
        noPermission.send(new DatagramPacket(bytes("in"), 2, relayed));
        assertThat(c.receive(800)).isNull();
        await().atMost(Duration.ofSeconds(2)).until(() -> metrics.deniedPeers(PeerPath.INBOUND) == 1
                && metrics.droppedNoPermission.sum() == 1);
    }

    @Test
    void expiredForgedAndReplayedCredentialsAreRefused() throws Exception {
        InetSocketAddress addr = start(Map.of());
        // expired: issued two hours ago for one hour
        TurnCredential expired = new TurnCredentials(TurnSecrets.of(SECRET))
                .generate("eve", Duration.ofHours(1), Instant.now().minus(Duration.ofHours(2)));
        assertThat(udpClient(addr).allocate(expired.username(), expired.password()).errorCode()).isEqualTo(401);
        assertThat(metrics.authFailures(AuthFailure.EXPIRED)).isEqualTo(1);
        // forged: signed with a secret the server does not have, or username altered after signing
        TurnCredential forged = TurnFixture.credential("not-our-secret", "eve", Duration.ofHours(1));
        assertThat(udpClient(addr).allocate(forged.username(), forged.password()).errorCode()).isEqualTo(401);
        TurnCredential good = cred("eve");
        assertThat(udpClient(addr).allocate(good.username().replace(":eve", ":admin"), good.password()).errorCode())
                .isEqualTo(401);
        assertThat(metrics.authFailures(AuthFailure.BAD_INTEGRITY)).isEqualTo(2);
        // the previous secret (rotation) still works
        TurnCredential old = TurnFixture.credential(TurnFixture.OLD_SECRET, "eve", Duration.ofHours(1));
        assertThat(udpClient(addr).allocate(old.username(), old.password()).messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        assertThat(server.table().size()).isEqualTo(1);

        // replay: a valid signed Allocate captured and sent from another address gets 438, creates nothing
        TestTurnClient victim = udpClient(addr);
        victim.allocate(good.username(), good.password(), w -> { }); // sets nonce
        byte[] captured = victim.request(StunMethod.ALLOCATE, TestTurnClient.txid(), true, w -> w.requestedTransport(17));
        TestTurnClient attacker = udpClient(addr);
        StunMessage r = attacker.transact(captured);
        assertThat(r.errorCode()).isEqualTo(438);
        assertThat(server.table().size()).isEqualTo(2);
        // the username's keys are cached now (LongTermKeyCache): a wrong password with it is still refused
        assertThat(udpClient(addr).allocate(good.username(), "not-the-password").errorCode()).isEqualTo(401);
        assertThat(metrics.authFailures(AuthFailure.BAD_INTEGRITY)).isEqualTo(3);
        assertThat(server.table().size()).isEqualTo(2);
        // replay of the same bytes by the same client is a retransmission: same answer, no second allocation
        StunMessage again = victim.transact(captured);
        assertThat(again.errorCode()).isEqualTo(437); // different transaction from the allocating one
        assertThat(server.table().size()).isEqualTo(2);

        // a nonce older than its TTL is stale (438), even with good credentials
        clock.addAndGet(Duration.ofMinutes(11).toMillis());
        assertThat(victim.refresh(600).errorCode()).isEqualTo(438);
        assertThat(metrics.authFailures(AuthFailure.STALE_NONCE)).isEqualTo(2);
    }

    @Test
    void allocationErrors437441442420() throws Exception {
        InetSocketAddress addr = start(Map.of());
        TestTurnClient c = udpClient(addr);
        TurnCredential cred = cred("dave");
        assertThat(c.allocate(cred.username(), cred.password()).messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        // second Allocate on the same 5-tuple
        assertThat(c.transact(c.request(StunMethod.ALLOCATE, TestTurnClient.txid(), true, w -> w.requestedTransport(17)))
                .errorCode()).isEqualTo(437);
        // Refresh with another user's (valid) credentials
        TurnCredential other = cred("dave2");
        c.credentials(other.username(), other.password());
        assertThat(c.refresh(600).errorCode()).isEqualTo(441);

        TestTurnClient d = udpClient(addr);
        d.allocate(cred.username(), cred.password(), w -> { });
        assertThat(server.table().size()).isEqualTo(2);
        TestTurnClient e = udpClient(addr);
        StunMessage tcp = e.allocate(cred.username(), cred.password(), w -> { });
        assertThat(tcp.messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE); // uses UDP
        TestTurnClient f = udpClient(addr);
        f.challenge(cred.username(), cred.password());
        byte[] req = f.request(StunMethod.ALLOCATE, TestTurnClient.txid(), true, w -> w.requestedTransport(132)); // SCTP
        assertThat(f.transact(req).errorCode()).isEqualTo(442);
        // TCP (RFC 6062) needs a TCP/TLS control connection: over UDP it is a bad request
        byte[] tcpOverUdp = f.request(StunMethod.ALLOCATE, TestTurnClient.txid(), true, w -> w.requestedTransport(6));
        assertThat(f.transact(tcpOverUdp).errorCode()).isEqualTo(400);
        // an unknown comprehension-required attribute
        byte[] unknown = f.request(StunMethod.ALLOCATE, TestTurnClient.txid(), true,
                w -> w.requestedTransport(17).flag(0x0077));
        StunMessage r420 = f.transact(unknown);
        assertThat(r420.errorCode()).isEqualTo(420);
        assertThat(r420.unknownAttributes()).containsExactly(0x0077);
        // refresh without allocation
        assertThat(f.refresh(600).errorCode()).isEqualTo(437);
    }

    @Test
    void evenPortReservationsHandOutTheOddNeighbour() throws Exception {
        InetSocketAddress addr = start(Map.of());
        TurnCredential cred = cred("rtp");
        StunMessage rtp = udpClient(addr).allocate(cred.username(), cred.password(), w -> w.evenPort(true));
        assertThat(rtp.messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
        int evenPort = rtp.xorAddress(StunAttribute.XOR_RELAYED_ADDRESS).getPort();
        assertThat(evenPort % 2).isZero();
        long token = rtp.uint64(StunAttribute.RESERVATION_TOKEN, 0);
        assertThat(token).isNotZero();
        assertThat(server.table().reservationCount()).isEqualTo(1);

        TestTurnClient rtcpClient = udpClient(addr);
        StunMessage rtcp = rtcpClient.allocate(cred.username(), cred.password(),
                w -> w.uint64(StunAttribute.RESERVATION_TOKEN, token));
        assertThat(rtcp.xorAddress(StunAttribute.XOR_RELAYED_ADDRESS).getPort()).isEqualTo(evenPort + 1);
        assertThat(server.table().reservationCount()).isZero();
        // a token works once; unknown tokens get 508; EVEN-PORT with a token is a bad request
        assertThat(udpClient(addr).allocate(cred.username(), cred.password(),
                w -> w.uint64(StunAttribute.RESERVATION_TOKEN, token)).errorCode()).isEqualTo(508);
        assertThat(udpClient(addr).allocate(cred.username(), cred.password(),
                w -> w.evenPort(false).uint64(StunAttribute.RESERVATION_TOKEN, 42)).errorCode()).isEqualTo(400);
        StunMessage plainEven = udpClient(addr).allocate(cred.username(), cred.password(), w -> w.evenPort(false));
        assertThat(plainEven.xorAddress(StunAttribute.XOR_RELAYED_ADDRESS).getPort() % 2).isZero();
        assertThat(plainEven.has(StunAttribute.RESERVATION_TOKEN)).isFalse();
        // an unused reservation lapses after ~30 s and frees its port
        StunMessage again = udpClient(addr).allocate(cred.username(), cred.password(), w -> w.evenPort(true));
        assertThat(again.has(StunAttribute.RESERVATION_TOKEN)).isTrue();
        int inUse = server.table().ports().inUse();
        clock.addAndGet(31_000);
        await().atMost(Duration.ofSeconds(3)).until(() -> server.table().reservationCount() == 0);
        assertThat(server.table().ports().inUse()).isEqualTo(inUse - 1);
    }

    @Test
    void quotasPerUserAndTotal() throws Exception {
        InetSocketAddress addr = start(Map.of("PARLEY_TURN_MAX_ALLOCATIONS_PER_USER", "2", "PARLEY_TURN_MAX_ALLOCATIONS", "3"));
        TurnCredential frank = cred("frank");
        for (int i = 0; i < 2; i++) {
            assertThat(udpClient(addr).allocate(frank.username(), frank.password()).messageClass())
                    .isEqualTo(StunClass.SUCCESS_RESPONSE);
        }
        assertThat(udpClient(addr).allocate(frank.username(), frank.password()).errorCode()).isEqualTo(486);
        assertThat(metrics.quotaRefusals(TurnMetrics.Quota.PER_USER)).isEqualTo(1);
        TurnCredential grace = cred("grace");
        assertThat(udpClient(addr).allocate(grace.username(), grace.password()).messageClass())
                .isEqualTo(StunClass.SUCCESS_RESPONSE);
        assertThat(udpClient(addr).allocate(grace.username(), grace.password()).errorCode()).isEqualTo(486);
        assertThat(metrics.quotaRefusals(TurnMetrics.Quota.TOTAL)).isEqualTo(1);
        assertThat(server.table().size()).isEqualTo(3);
    }

    @Test
    void bandwidthQuotaDropsExcess() throws Exception {
        InetSocketAddress addr = start(Map.of("PARLEY_TURN_MAX_BPS_PER_ALLOCATION", "80000")); // 10 kB/s
        TestTurnClient c = udpClient(addr);
        TurnCredential cred = cred("heidi");
        c.allocate(cred.username(), cred.password());
        DatagramSocket peer = peer("127.0.0.1");
        c.channelBind(0x4001, ip("127.0.0.1"), peer.getLocalPort());
        byte[] chunk = new byte[1000];
        for (int i = 0; i < 40; i++) {
            c.sendChannelData(0x4001, chunk);
        }
        int received = 0;
        while (receive(peer) != null) {
            received++;
        }
        assertThat(received).isBetween(5, 15); // ~10 kB burst, not 40 kB
        assertThat(metrics.quotaRefusals(TurnMetrics.Quota.BANDWIDTH)).isGreaterThanOrEqualTo(25);
    }

    @Test
    void unauthenticatedFloodCreatesNoStateAndFewAnswers() throws Exception {
        InetSocketAddress addr = start(Map.of("PARLEY_TURN_UNAUTH_PER_SECOND", "200"));
        List<TestTurnClient> clients = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            clients.add(udpClient(addr));
        }
        int sent = 0;
        for (int round = 0; round < 150; round++) {
            for (TestTurnClient c : clients) {
                c.sendRaw(c.request(StunMethod.ALLOCATE, TestTurnClient.txid(), false, w -> w.requestedTransport(17)));
                sent++;
            }
        }
        int answers = 0;
        for (TestTurnClient c : clients) {
            while (c.receive(200) != null) {
                answers++;
            }
        }
        assertThat(sent).isEqualTo(3000);
        assertThat(answers).isLessThanOrEqualTo(20 * 20 + 200).isGreaterThan(0);
        assertThat(metrics.unauthenticatedThrottled.sum()).isGreaterThan(2000);
        assertThat(metrics.authFailures(AuthFailure.MISSING_INTEGRITY)).isEqualTo(3000);
        assertThat(server.table().size()).isZero();
        assertThat(server.table().reservedCount()).isZero();
        assertThat(server.table().trackedUsers()).isZero();
        assertThat(server.table().ports().inUse()).isZero();
    }

    @Test
    void lifetimesExpireAndAreCappedByTheCredential() throws Exception {
        InetSocketAddress addr = start(Map.of());
        TestTurnClient c = udpClient(addr);
        TurnCredential shortLived = TurnFixture.credential(SECRET, "ivan", Duration.ofSeconds(100));
        StunMessage ok = c.allocate(shortLived.username(), shortLived.password(), w -> w.uint32(StunAttribute.LIFETIME, 3600));
        assertThat(ok.uint32(StunAttribute.LIFETIME, 0)).isBetween(95L, 105L);
        DatagramSocket peer = peer("127.0.0.1");
        c.createPermission(InetAddress.getByName("127.0.0.1"));
        assertThat(server.table().permissionCount()).isEqualTo(1);
        // permission expires after 300 s (sweep runs every second)
        clock.addAndGet(301_000);
        await().atMost(Duration.ofSeconds(3)).until(() -> server.table().permissionCount() == 0);
        c.sendIndication(ip("127.0.0.1"), peer.getLocalPort(), bytes("late"));
        assertThat(receive(peer)).isNull();
        // the allocation expired with its lifetime: gone
        await().atMost(Duration.ofSeconds(3)).until(() -> server.table().size() == 0);
        assertThat(metrics.allocationsExpired.sum()).isEqualTo(1);
    }

    @Test
    void refreshPastCredentialExpiryIsRefused() throws Exception {
        InetSocketAddress addr = start(Map.of());
        TestTurnClient c = udpClient(addr);
        TurnCredential cred = TurnFixture.credential(SECRET, "judy", Duration.ofSeconds(200));
        c.allocate(cred.username(), cred.password());
        assertThat(c.refresh(600).uint32(StunAttribute.LIFETIME, 0)).isBetween(195L, 205L);
        clock.addAndGet(250_000);
        StunMessage r = c.refresh(600);
        assertThat(r.errorCode()).isIn(401, 438);
    }

    @Test
    void drainingRefusesNewAllocationsButKeepsRelaying() throws Exception {
        InetSocketAddress addr = start(Map.of());
        TestTurnClient c = udpClient(addr);
        TurnCredential cred = cred("ken");
        c.allocate(cred.username(), cred.password());
        DatagramSocket peer = peer("127.0.0.1");
        c.channelBind(0x4001, ip("127.0.0.1"), peer.getLocalPort());
        server.startDraining();
        assertThat(udpClient(addr).allocate(cred.username(), cred.password()).errorCode()).isEqualTo(403);
        c.sendChannelData(0x4001, bytes("still here"));
        assertThat(receive(peer)).isEqualTo("still here");
        assertThat(c.refresh(600).messageClass()).isEqualTo(StunClass.SUCCESS_RESPONSE);
    }

    @Test
    void bindingRequestAndJunkAreHandled() throws Exception {
        InetSocketAddress addr = start(Map.of());
        TestTurnClient c = udpClient(addr);
        StunMessage r = c.transact(c.request(StunMethod.BINDING, TestTurnClient.txid(), false, w -> { }));
        assertThat(r.xorAddress(StunAttribute.XOR_MAPPED_ADDRESS)).isEqualTo(c.localAddress());
        c.sendRaw(new byte[] {(byte) 0x80, 1, 2, 3, 4, 5});
        c.sendRaw(new byte[] {0x40, 0x01, 0, 50, 1});
        c.sendRaw(Arrays.copyOf(c.request(StunMethod.ALLOCATE, TestTurnClient.txid(), false, w -> { }), 30));
        await().atMost(Duration.ofSeconds(2)).until(() -> metrics.malformedPackets.sum() + metrics.droppedNoPermission.sum() >= 3);
        assertThat(c.transact(c.request(StunMethod.BINDING, TestTurnClient.txid(), false, w -> { }))).isNotNull();
    }
}
