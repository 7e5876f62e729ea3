package dev.parley.sfu;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.nimbusds.jose.jwk.ECKey;
import dev.parley.media.dtls.DtlsCertificate;
import dev.parley.media.dtls.DtlsEndpoint;
import dev.parley.media.dtls.DtlsSrtpKeys;
import dev.parley.media.dtls.QueueDatagramTransport;
import dev.parley.media.ice.IceChecks;
import dev.parley.media.srtp.SrtpProfile;
import dev.parley.platform.ticket.TicketKeys;
import dev.parley.platform.ticket.TicketSigner;
import dev.parley.sfu.config.SfuConfig;
import dev.parley.sfu.signaling.AnswerBuilderTest;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * RFC 6347 §4.1.2.7 through the real SFU (sockets, demux, transport, DTLS server): junk DTLS-looking datagrams
 * sent on a transport's nominated path before the ClientHello and before every later flight are discarded and
 * counted, and a BouncyCastle DTLS client still completes the handshake and its SRTP keys work. Over UDP and over
 * ICE-TCP (RFC 4571 framing).
 */
class DtlsJunkIT {
    private static final String SECRET = "test-internal-secret-0123456789";
    private static final String POD = "sfu-dtls-junk";
    private static final DtlsCertificate CLIENT_CERT = DtlsCertificate.generate();
    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void junkBeforeAndBetweenFlightsIsDroppedOverUdp() throws Exception {
        handshakeThroughJunk(false);
    }

    @Test
    void junkBeforeAndBetweenFlightsIsDroppedOverIceTcp() throws Exception {
        handshakeThroughJunk(true);
    }

    /** What a peer (or anyone able to send from its address) might put on the path: each one datagram. */
    static List<byte[]> junk() {
        java.util.Random r = new java.util.Random(42);
        List<byte[]> j = new ArrayList<>();
        byte[] a = new byte[23];
        r.nextBytes(a);
        a[0] = 0x16; a[1] = (byte) 0xFE; a[2] = (byte) 0xFD; a[11] = 0x33;
        j.add(a);                                                                      // 16 fe fd + random bytes
        j.add(hex("16fefd 0000 000000000000 0064 0102030405"));                        // truncated record
        j.add(hex("16fefd 0000 000000000000 0002 0102 030405060708090a0b0c0d0e0f"));  // wrong length
        byte[] noise = new byte[80];
        r.nextBytes(noise);
        noise[0] = 42;
        j.add(noise);                                                                  // random, first byte 20..63
        // well framed, still invalid: what BouncyCastle itself raises a fatal alert for
        j.add(record(22, 0, 900, fragment(1, 8, 0, new byte[]{1, 2, 3, 4, 5, 6, 7, 8})));   // garbage ClientHello
        j.add(record(22, 0, 901, fragment(0x63, 4, 0, new byte[]{9, 9, 9, 9})));            // unknown message type
        j.add(record(21, 0, 902, new byte[]{2, 40}));                                         // unauthenticated fatal alert
        j.add(record(22, 1, 903, new byte[]{1, 2, 3, 4, 5}));                                // epoch 1, shorter than a GCM tag
        j.add(record(23, 0, 904, new byte[16]));                                              // application data in epoch 0
        j.add(record(24, 0, 905, new byte[]{1, 0, 1, 0}));                                   // heartbeat (not negotiated)
        return j;
    }

    private void handshakeThroughJunk(boolean tcp) throws Exception {
        ECKey key = TicketKeys.generate();
        TicketSigner signer = new TicketSigner(key);
        try (SfuServer sfu = new SfuServer(new SfuConfig(POD, "local", "127.0.0.1", "127.0.0.1", 0, 0, 0, SECRET,
                key.toPublicJWK().toJSONString(), "", 5, false, 4_000_000, true))) {
            ObjectNode body = json.createObjectNode();
            String offer = AnswerBuilderTest.offer("sendonly", false)
                    .replaceAll("a=fingerprint:sha-256 \\S+", "a=fingerprint:sha-256 " + CLIENT_CERT.fingerprint());
            body.put("meeting_id", "m1").put("participant_id", "p1").put("transport_generation", 1)
                    .put("controller_epoch", 1).put("kind", "publish")
                    .put("connect_ticket", signer.issue("m1", "p1", 1, POD, "dk", Duration.ofSeconds(20)).token())
                    .put("sdp_offer", offer);
            body.putObject("grant").put("participant_id", "p1").put("version", 1).put("controller_epoch", 1)
                    .put("subscribe", true).put("ttl_ms", 3000)
                    .putObject("publish").put("audio", true).put("video", true).put("screen", false);
            String answer = call(sfu, "POST", "/internal/v1/transports", body).get("sdp_answer").asText();
            String ufrag = attr(answer, "ice-ufrag"), sfuFingerprint = attr(answer, "fingerprint:sha-256");
            byte[] pwd = attr(answer, "ice-pwd").getBytes(StandardCharsets.UTF_8);
            List<byte[]> junk = junk();

            try (Wire wire = tcp ? new TcpWire(sfu.tcpPort()) : new UdpWire(sfu.udpPort())) {
                java.util.concurrent.atomic.AtomicBoolean iceDone = new java.util.concurrent.atomic.AtomicBoolean();
                // every DTLS datagram of the client goes out behind the whole junk list: before its ClientHello,
                // before its second flight, before any retransmission
                QueueDatagramTransport q = new QueueDatagramTransport((b, o, l) -> {
                    for (byte[] j : junk) wire.send(j, 0, j.length);
                    wire.send(b, o, l);
                });
                Thread reader = Thread.ofVirtual().start(() -> {
                    byte[] b = new byte[2048];
                    while (true) {
                        int n = wire.receive(b);
                        if (n < 0) return;
                        int first = b[0] & 0xFF;
                        if (first < 4) {
                            var m = new IceChecks().parse(b, 0, n);
                            if (m != null && m.messageType() == IceChecks.BINDING_SUCCESS && IceChecks.verify(m, pwd)) iceDone.set(true);
                        } else if (first >= 20 && first < 64) {
                            q.offer(b, 0, n);
                        }
                    }
                });
                await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100)).until(() -> {
                    byte[] tid = new byte[12];
                    java.util.concurrent.ThreadLocalRandom.current().nextBytes(tid);
                    byte[] b = new byte[512];
                    int n = new IceChecks().writeBindingRequest(b, 0, tid, ufrag + ":ufA1", 1_845_501_695L, true, 42L, true, pwd);
                    wire.send(b, 0, n);
                    return iceDone.get();
                });

                DtlsEndpoint client = new DtlsEndpoint(false, CLIENT_CERT, sfuFingerprint,
                        List.of(SrtpProfile.AEAD_AES_128_GCM, SrtpProfile.AES128_CM_HMAC_SHA1_80), q);
                DtlsSrtpKeys keys = client.handshake();
                assertThat(keys.profile()).isEqualTo(SrtpProfile.AEAD_AES_128_GCM);
                await().atMost(Duration.ofSeconds(5)).until(() -> "CONNECTED".equals(participant(sfu).path("publish_transport").asText()));

                // the exported keys match the SFU's: an SRTP packet is authenticated and decrypted, and only then
                // refused by routing (PCMU, no track of this publisher takes it); a tampered copy fails authentication
                byte[] rtp = new byte[12 + 20 + 32];
                rtp[0] = (byte) 0x80; rtp[1] = 0; rtp[3] = 1;
                ByteBuffer.wrap(rtp, 8, 4).putInt(1234);
                int n = keys.outbound().protectRtp(rtp, 0, 32);
                byte[] tampered = java.util.Arrays.copyOf(rtp, n);
                tampered[20] ^= 1;
                tampered[3] = 2;
                wire.send(rtp, 0, n);
                await().atMost(Duration.ofSeconds(5)).until(() -> sfu.metrics().drops("unknown_ssrc") == 1);
                assertThat(sfu.metrics().sum(m -> m.srtpAuthFailures)).isZero();
                wire.send(tampered, 0, n);
                await().atMost(Duration.ofSeconds(5)).until(() -> sfu.metrics().sum(m -> m.srtpAuthFailures) == 1);

                // every junk datagram was counted as a drop, none reached the handshake as a fatal error
                long malformed = sfu.metrics().drops("dtls_malformed");
                assertThat(malformed).as("dtls_malformed").isGreaterThanOrEqualTo(2L * 8);
                // the plaintext alert (and, once the server spoke, the ClientHello-shaped junk) is well-formed but unwanted
                assertThat(sfu.metrics().drops("dtls_unexpected")).as("dtls_unexpected").isGreaterThanOrEqualTo(2);
                // the garbage ClientHello before the real one reached BouncyCastle, which rejected it: a fresh attempt
                assertThat(sfu.metrics().drops("dtls_hello_rejected")).as("dtls_hello_rejected").isPositive();
                String metrics = get(sfu, "/metrics");
                assertThat(metrics).contains("parley_sfu_drops_total{reason=\"dtls_malformed\"} " + malformed)
                        .contains("parley_sfu_drops_total{reason=\"dtls_unexpected\"}")
                        .contains("parley_sfu_drops_total{reason=\"dtls_hello_rejected\"}");
                client.close();
                reader.interrupt();
            }
        }
    }

    /** The client's side of the path: UDP datagrams, or RFC 4571 frames on one ICE-TCP connection. */
    interface Wire extends AutoCloseable {
        void send(byte[] b, int off, int len);
        /** Next datagram / frame into {@code b}; -1 once closed. */
        int receive(byte[] b);
        @Override void close();
    }

    static final class UdpWire implements Wire {
        private final DatagramSocket s;

        UdpWire(int port) throws IOException {
            s = new DatagramSocket(0, InetAddress.getLoopbackAddress());
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        }

        @Override public void send(byte[] b, int off, int len) {
            try { s.send(new DatagramPacket(b, off, len)); } catch (IOException e) { throw new java.io.UncheckedIOException(e); }
        }

        @Override public int receive(byte[] b) {
            DatagramPacket p = new DatagramPacket(b, b.length);
            try { s.receive(p); return p.getLength(); } catch (IOException e) { return -1; }
        }

        @Override public void close() { s.close(); }
    }

    static final class TcpWire implements Wire {
        private final Socket s;
        private final OutputStream out;
        private final DataInputStream in;

        TcpWire(int port) throws IOException {
            s = new Socket(InetAddress.getLoopbackAddress(), port);
            s.setTcpNoDelay(true);
            out = s.getOutputStream();
            in = new DataInputStream(s.getInputStream());
        }

        @Override public synchronized void send(byte[] b, int off, int len) {
            try {
                out.write(new byte[]{(byte) (len >>> 8), (byte) len});
                out.write(b, off, len);
                out.flush();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        @Override public int receive(byte[] b) {
            try {
                int len = in.readUnsignedShort();
                in.readFully(b, 0, len);
                return len;
            } catch (IOException e) {
                return -1;
            }
        }

        @Override public void close() {
            try { s.close(); } catch (IOException ignored) { /* closing */ }
        }
    }

    static byte[] record(int type, int epoch, long seq, byte[] body) {
        ByteBuffer b = ByteBuffer.allocate(13 + body.length);
        b.put((byte) type).putShort((short) 0xFEFD).putShort((short) epoch);
        b.putShort((short) (seq >>> 32)).putInt((int) seq);
        b.putShort((short) body.length).put(body);
        return b.array();
    }

    /** A whole handshake message as one fragment. */
    static byte[] fragment(int msgType, int length, int messageSeq, byte[] frag) {
        ByteBuffer b = ByteBuffer.allocate(12 + frag.length);
        b.put((byte) msgType).put((byte) 0).putShort((short) length).putShort((short) messageSeq);
        b.put((byte) 0).putShort((short) 0).put((byte) 0).putShort((short) frag.length).put(frag);
        return b.array();
    }

    static byte[] hex(String s) { return HexFormat.of().parseHex(s.replace(" ", "")); }

    private JsonNode participant(SfuServer sfu) throws Exception {
        for (JsonNode m : call(sfu, "GET", "/internal/v1/state", null).path("meetings")) {
            for (JsonNode p : m.path("participants")) if ("p1".equals(p.path("participant_id").asText())) return p;
        }
        return json.missingNode();
    }

    private static String attr(String sdp, String name) {
        Matcher m = Pattern.compile("a=" + name + "[: ](\\S+)").matcher(sdp);
        assertThat(m.find()).as(name).isTrue();
        return m.group(1);
    }

    private String get(SfuServer sfu, String path) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sfu.internalPort() + path)).GET().build();
        return http.send(req, HttpResponse.BodyHandlers.ofString()).body();
    }

    private JsonNode call(SfuServer sfu, String method, String path, JsonNode body) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + sfu.internalPort() + path))
                .header("Authorization", "Bearer " + SECRET).header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(json.writeValueAsString(body))).build();
        HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(method + " " + path + ": " + r.body()).isEqualTo(200);
        return json.readTree(r.body());
    }
}
