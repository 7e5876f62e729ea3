package dev.parley.e2e.chaos;

import dev.parley.media.dtls.DtlsCertificate;
import dev.parley.media.dtls.DtlsEndpoint;
import dev.parley.media.dtls.DtlsSrtpKeys;
import dev.parley.media.dtls.QueueDatagramTransport;
import dev.parley.media.ice.IceCredentials;
import dev.parley.media.ice.IceChecks;
import dev.parley.media.rtp.RtpPacket;
import dev.parley.media.sdp.MediaSection;
import dev.parley.media.sdp.SessionDescription;
import dev.parley.media.srtp.SrtpContext;
import dev.parley.media.srtp.SrtpProfile;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.List;
import java.util.function.IntUnaryOperator;

/**
 * The load client's side of one peer connection (media-core's client roles): ICE controlling agent toward the SFU's
 * ICE-lite candidate, DTLS client, SRTP. It dials the {@link UdpImpairmentProxy} in front of the SFU's port (the
 * answer's UDP candidate mapped through {@code portMap}), keeps consent alive every 500 ms and remembers when the
 * SFU last answered anything ({@link #lastInboundNanos}): STUN answers keep coming while grants are expired, so a
 * silent link means the SFU is gone.
 */
final class MediaLink implements AutoCloseable {
    interface Handler {
        /** A decrypted RTP packet (length n), on this link's receive thread. */
        void onRtp(byte[] b, int n, long nanos);

        /** A decrypted RTCP compound packet. */
        void onRtcp(byte[] b, int n);
    }

    static final DtlsCertificate CERT = DtlsCertificate.generate();
    private static final SecureRandom RANDOM = new SecureRandom();
    final IceCredentials local = IceCredentials.random();
    private final IceChecks rxIce = new IceChecks(); // the receive loop's STUN view
    private final DatagramChannel ch;
    private final Handler handler;
    private volatile boolean iceDone, closed;
    private QueueDatagramTransport dtlsQueue;
    private String remoteUfrag;
    private byte[] remotePwd;
    volatile SrtpContext tx, rx;
    volatile long lastInboundNanos;
    int sfuPort;

    MediaLink(Handler handler) throws IOException {
        this.handler = handler;
        ch = DatagramChannel.open();
        ch.bind(new InetSocketAddress("127.0.0.1", 0));
        ch.setOption(java.net.StandardSocketOptions.SO_RCVBUF, 1 << 20);
    }

    String transportLines() {
        return "a=ice-ufrag:" + local.ufrag() + "\r\na=ice-pwd:" + local.pwd() + "\r\na=fingerprint:sha-256 " + CERT.fingerprint()
            + "\r\na=setup:actpass\r\na=rtcp-mux\r\n";
    }

    /** Applies the SFU's answer: ICE checks through the proxy until answered, then DTLS (blocking, ≤ ~25 s). */
    void connect(String answerSdp, IntUnaryOperator portMap) throws IOException {
        SessionDescription a = SessionDescription.parse(answerSdp);
        MediaSection m = a.media().get(0);
        remoteUfrag = a.attribute(m, "ice-ufrag");
        remotePwd = a.attribute(m, "ice-pwd").getBytes(StandardCharsets.UTF_8);
        String fp = a.attribute(m, "fingerprint").substring(8);
        int port = -1;
        for (String c : m.attributes("candidate")) {
            String[] f = c.split(" ");
            if (f[2].equalsIgnoreCase("udp")) port = Integer.parseInt(f[5]);
        }
        if (port < 0) throw new IOException("no UDP candidate in the answer");
        sfuPort = port;
        ch.connect(new InetSocketAddress("127.0.0.1", portMap.applyAsInt(port)));
        dtlsQueue = new QueueDatagramTransport(this::send);
        Thread.ofVirtual().start(this::receiveLoop);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!iceDone) {
            if (closed) throw new IOException("closed");
            if (System.nanoTime() > deadline) throw new IOException("ICE did not complete");
            check();
            Api.sleep(50);
        }
        DtlsEndpoint dtls = new DtlsEndpoint(false, CERT, fp,
            List.of(SrtpProfile.AEAD_AES_128_GCM, SrtpProfile.AES128_CM_HMAC_SHA1_80), dtlsQueue);
        DtlsSrtpKeys keys = dtls.handshake();
        tx = keys.outbound();
        rx = keys.inbound();
        Thread.ofVirtual().start(dtls::drain);
        Thread.ofVirtual().start(this::consentLoop);
    }

    private void consentLoop() {
        while (!closed) {
            check();
            Api.sleep(500);
        }
    }

    private void check() {
        byte[] tid = new byte[12];
        RANDOM.nextBytes(tid);
        byte[] b = new byte[256];
        int n = new IceChecks().writeBindingRequest(b, 0, tid, remoteUfrag + ":" + local.ufrag(), 1_845_501_695L, true,
            RANDOM.nextLong(), true, remotePwd);
        send(b, 0, n);
    }

    void send(byte[] b, int off, int len) {
        try {
            ch.write(ByteBuffer.wrap(b, off, len));
        } catch (IOException e) {
            // unreachable port (the SFU is gone) or closed: the watchdog notices the silence
        }
    }

    /** Protects and sends an RTP packet of {@code len} bytes in {@code b} (which must have room for the tag). */
    synchronized void sendRtp(byte[] b, int len) {
        SrtpContext t = tx;
        if (t == null || closed) return;
        int n = t.protectRtp(b, 0, len);
        if (n > 0) send(b, 0, n);
    }

    private void receiveLoop() {
        ByteBuffer buf = ByteBuffer.allocate(2048);
        byte[] b = buf.array();
        while (!closed) {
            try {
                buf.clear();
                ch.receive(buf);
            } catch (IOException e) {
                if (closed) return;
                Api.sleep(20); // ICMP port unreachable while the SFU is down
                continue;
            }
            int len = buf.position();
            if (len == 0) continue;
            long now = System.nanoTime();
            int first = b[0] & 0xFF;
            if (first < 4) {
                var m = rxIce.parse(b, 0, len);
                if (m != null && m.messageType() == IceChecks.BINDING_SUCCESS && IceChecks.verify(m, remotePwd)) {
                    iceDone = true;
                    lastInboundNanos = now;
                }
            } else if (first >= 20 && first < 64) {
                dtlsQueue.offer(b, 0, len);
            } else if (first >= 128 && first < 192 && rx != null) {
                lastInboundNanos = now;
                if (RtpPacket.isRtcp(b, 0, len)) {
                    int n = rx.unprotectRtcp(b, 0, len);
                    if (n > 0) handler.onRtcp(b, n);
                } else {
                    int n = rx.unprotectRtp(b, 0, len);
                    if (n > 0) handler.onRtp(b, n, now);
                }
            }
        }
    }

    boolean connected() {
        return rx != null && !closed;
    }

    @Override
    public void close() {
        closed = true;
        try {
            ch.close();
        } catch (IOException ignored) {
            // closing
        }
        if (dtlsQueue != null) dtlsQueue.close();
    }
}
