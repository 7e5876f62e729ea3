package dev.parley.bench.media;

import dev.parley.media.dtls.DtlsCertificate;
import dev.parley.media.dtls.DtlsEndpoint;
import dev.parley.media.dtls.DtlsSrtpKeys;
import dev.parley.media.dtls.QueueDatagramTransport;
import dev.parley.media.ice.IceCredentials;
import dev.parley.media.ice.IceChecks;
import dev.parley.media.srtp.SrtpProfile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The load client against a peer that behaves like Janus (libnice): the peer sends connectivity checks of its own,
 * which the client must answer, and takes the DTLS client role ({@code setup:active}), making the client the DTLS
 * server. The peer here is a real STUN responder and a real media-core DTLS client on a loopback socket.
 */
class ClientTransportPeerTest {

    @Test
    @Timeout(30)
    void answersThePeersChecksAndRunsDtlsAsServerWhenThePeerIsActive() throws Exception {
        IceCredentials peerIce = IceCredentials.random();
        DtlsCertificate peerCert = DtlsCertificate.generate();
        try (DatagramChannel peer = DatagramChannel.open();
             ClientTransport client = new ClientTransport((t, b, len, now) -> { })) {
            peer.bind(new InetSocketAddress("127.0.0.1", 0));
            int port = ((InetSocketAddress) peer.getLocalAddress()).getPort();
            String remote = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=ice-lite\r\n"
                    + "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 127.0.0.1\r\na=mid:0\r\na=recvonly\r\n"
                    + "a=ice-ufrag:" + peerIce.ufrag() + "\r\na=ice-pwd:" + peerIce.pwd() + "\r\n"
                    + "a=fingerprint:sha-256 " + peerCert.fingerprint() + "\r\na=setup:active\r\na=rtcp-mux\r\n"
                    + "a=rtpmap:111 opus/48000/2\r\na=candidate:1 1 udp 2015363327 127.0.0.1 " + port + " typ host\r\n";
            CompletableFuture<Void> connected = CompletableFuture.runAsync(() -> {
                try { client.connect(remote, true); } catch (Exception e) { throw new RuntimeException(e); }
            });

            byte[] ourCheck = new byte[12];
            Arrays.fill(ourCheck, (byte) 7);
            CompletableFuture<Boolean> checkAnswered = new CompletableFuture<>();
            QueueDatagramTransport[] dtls = new QueueDatagramTransport[1];
            SocketAddress[] clientAddr = new SocketAddress[1];
            CompletableFuture<DtlsSrtpKeys> peerKeys = new CompletableFuture<>();
            Thread reader = Thread.ofPlatform().daemon().start(() -> {
                ByteBuffer buf = ByteBuffer.allocate(2048);
                byte[] b = buf.array();
                IceChecks ice = new IceChecks();
                try {
                    while (true) {
                        buf.clear();
                        SocketAddress from = peer.receive(buf);
                        int len = buf.position();
                        if ((b[0] & 0xFF) < 4) {
                            var m = ice.parse(b, 0, len);
                            if (m.messageType() == IceChecks.BINDING_REQUEST) {
                                // the client's check: answer it, then check the client as libnice does
                                assertThat(IceChecks.username(m)).isEqualTo(peerIce.ufrag() + ":" + client.local.ufrag());
                                assertThat(IceChecks.verify(m, peerIce.pwdBytes())).isTrue();
                                byte[] out = new byte[256];
                                peer.send(ByteBuffer.wrap(out, 0, ice.writeBindingSuccess(out, 0, m,
                                        (InetSocketAddress) from, peerIce.pwdBytes())), from);
                                int n = ice.writeBindingRequest(out, 0, ourCheck, client.local.ufrag() + ":" + peerIce.ufrag(),
                                        1_845_501_695L, false, 42, false, client.local.pwdBytes());
                                peer.send(ByteBuffer.wrap(out, 0, n), from);
                                if (clientAddr[0] == null) {
                                    clientAddr[0] = from;
                                    dtls[0] = new QueueDatagramTransport((o, off, l) -> {
                                        try { peer.send(ByteBuffer.wrap(o, off, l), from); } catch (Exception e) { throw new RuntimeException(e); }
                                    });
                                    Thread.ofPlatform().daemon().start(() -> {
                                        try {
                                            peerKeys.complete(new DtlsEndpoint(false, peerCert, ClientTransport.CERT.fingerprint(),
                                                    List.of(SrtpProfile.AEAD_AES_128_GCM), dtls[0]).handshake());
                                        } catch (Exception e) {
                                            peerKeys.completeExceptionally(e);
                                        }
                                    });
                                }
                            } else if (m.messageType() == IceChecks.BINDING_SUCCESS && m.transactionIdEquals(ourCheck)) {
                                checkAnswered.complete(IceChecks.verify(m, client.local.pwdBytes()));
                            }
                        } else if ((b[0] & 0xFF) >= 20 && (b[0] & 0xFF) < 64 && dtls[0] != null) {
                            dtls[0].offer(b, 0, len);
                        }
                    }
                } catch (Exception | AssertionError e) {
                    checkAnswered.completeExceptionally(e);
                }
            });

            assertThat(checkAnswered.get(5, TimeUnit.SECONDS)).as("the peer's check answered with a valid Binding success").isTrue();
            connected.get(20, TimeUnit.SECONDS);
            assertThat(peerKeys.get(5, TimeUnit.SECONDS).profile()).isEqualTo(SrtpProfile.AEAD_AES_128_GCM);
            assertThat(client.tx.profile()).isEqualTo(SrtpProfile.AEAD_AES_128_GCM);
            reader.interrupt();
        }
    }
}
