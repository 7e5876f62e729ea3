package dev.parley.bench.media;

import dev.parley.media.dtls.DtlsCertificate;
import dev.parley.media.dtls.DtlsEndpoint;
import dev.parley.media.dtls.DtlsSrtpKeys;
import dev.parley.media.dtls.QueueDatagramTransport;
import dev.parley.media.ice.IceCredentials;
import dev.parley.media.ice.IceChecks;
import dev.parley.media.stun.StunMessage;
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

/**
 * The browser side of one peer connection, built on media-core's client roles: ICE controlling agent (Binding
 * requests with USE-CANDIDATE toward the SFU's ICE-lite candidate; the peer's own checks are answered), DTLS client
 * (or server, when the peer's description says {@code setup:active}, as Janus's answers do), SRTP. One UDP socket on
 * loopback (or a given local address), read by its own virtual thread.
 */
public final class ClientTransport implements AutoCloseable {
    public interface MediaSink { void onSrtp(ClientTransport t, byte[] b, int len, long now); }

    public static final DtlsCertificate CERT = DtlsCertificate.generate();
    /**
     * SRTP profiles offered in use_srtp ({@code -Dbench.srtp}): {@code both} (default) offers AES-GCM and AES-CM +
     * HMAC-SHA1 as Chromium does, so the SFU's preference decides; {@code hmac} offers only AES-CM + HMAC-SHA1
     * (the figures recorded before the SFU preferred GCM); {@code gcm} only AES-GCM.
     */
    public static final List<SrtpProfile> OFFERED_PROFILES = switch (System.getProperty("bench.srtp", "both")) {
        case "hmac" -> List.of(SrtpProfile.AES128_CM_HMAC_SHA1_80);
        case "gcm" -> List.of(SrtpProfile.AEAD_AES_128_GCM);
        default -> List.of(SrtpProfile.AEAD_AES_128_GCM, SrtpProfile.AES128_CM_HMAC_SHA1_80);
    };
    private static final SecureRandom RANDOM = new SecureRandom();
    public final IceCredentials local = IceCredentials.random();
    /** STUN view and writer of the receive loop (that thread only). */
    private final IceChecks rxIce = new IceChecks();
    private final DatagramChannel ch;
    private final MediaSink sink;
    private volatile boolean iceDone, closed;
    private QueueDatagramTransport dtlsQueue;
    private String remoteUfrag;
    private byte[] remotePwd;
    public volatile SrtpContext tx, rx;

    public ClientTransport(MediaSink sink) throws IOException { this(sink, "127.0.0.1"); }

    /**
     * @param bindAddress a local address: 127.0.0.1 toward the Parley SFU; toward a server that only takes candidates
     *     on a non-loopback interface (Janus), that interface's address, which is still delivered through loopback
     */
    public ClientTransport(MediaSink sink, String bindAddress) throws IOException {
        this.sink = sink;
        ch = DatagramChannel.open();
        ch.bind(new InetSocketAddress(bindAddress, 0));
        ch.setOption(java.net.StandardSocketOptions.SO_RCVBUF, 1 << 20);
    }

    /** SDP lines common to each m= section of an offer. */
    public String transportLines() { return transportLines("actpass"); }

    /** The same with another DTLS role: {@code active} in an answer to an {@code actpass} offer (the client side). */
    public String transportLines(String setup) {
        return "a=ice-ufrag:" + local.ufrag() + "\r\na=ice-pwd:" + local.pwd() + "\r\na=fingerprint:sha-256 " + CERT.fingerprint()
                + "\r\na=setup:" + setup + "\r\na=rtcp-mux\r\n";
    }

    /** The UDP port the client's candidate is on (for a trickled candidate). */
    public int localPort() throws IOException { return ((InetSocketAddress) ch.getLocalAddress()).getPort(); }

    /** Tests: how long to wait between ICE and the DTLS handshake (a slow handshake, as a busy browser's). */
    public volatile long dtlsDelayMillis;
    /** When the DTLS handshake was done (System.nanoTime), 0 before. */
    public volatile long connectedAtNanos;

    /** Applies the SFU's answer: ICE checks until answered, then the DTLS handshake as client (blocking). */
    public void connect(String answerSdp) throws IOException {
        SessionDescription a = SessionDescription.parse(answerSdp);
        MediaSection m = a.media().get(0);
        int port = -1;
        for (String c : m.attributes("candidate")) {
            String[] f = c.split(" ");
            if (f[2].equals("udp")) port = Integer.parseInt(f[5]);
        }
        connect(a, new InetSocketAddress("127.0.0.1", port), false);
    }

    /**
     * Applies another server's description (an answer, or the offer this client answers): ICE toward its first UDP
     * host candidate at the address it names, then DTLS as server ({@code setup:active} remote) or client.
     */
    public void connect(String remoteSdp, boolean dtlsServer) throws IOException {
        SessionDescription a = SessionDescription.parse(remoteSdp);
        InetSocketAddress remote = null;
        for (MediaSection m : a.media()) {
            for (String c : m.attributes("candidate")) {
                String[] f = c.split(" ");
                if (remote == null && f.length > 7 && f[2].equalsIgnoreCase("udp") && f[7].equals("host")) {
                    remote = new InetSocketAddress(f[4], Integer.parseInt(f[5]));
                }
            }
        }
        if (remote == null) throw new IOException("no UDP host candidate in the remote description");
        connect(a, remote, dtlsServer);
    }

    private void connect(SessionDescription a, InetSocketAddress remote, boolean dtlsServer) throws IOException {
        MediaSection m = a.media().get(0);
        remoteUfrag = a.attribute(m, "ice-ufrag");
        remotePwd = a.attribute(m, "ice-pwd").getBytes(StandardCharsets.UTF_8);
        String fp = a.attribute(m, "fingerprint").substring(8);
        ch.connect(remote);
        dtlsQueue = new QueueDatagramTransport((b, o, l) -> send(b, o, l));
        Thread.ofVirtual().start(this::receiveLoop);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!iceDone) {
            if (System.nanoTime() > deadline) throw new IOException("ICE did not complete");
            check();
            try { Thread.sleep(50); } catch (InterruptedException e) { Thread.currentThread().interrupt(); return; }
        }
        if (dtlsDelayMillis > 0) {
            try { Thread.sleep(dtlsDelayMillis); } catch (InterruptedException e) { Thread.currentThread().interrupt(); return; }
        }
        DtlsEndpoint dtls = new DtlsEndpoint(dtlsServer, CERT, fp, OFFERED_PROFILES, dtlsQueue);
        DtlsSrtpKeys keys = dtls.handshake();
        tx = keys.outbound();
        rx = keys.inbound();
        connectedAtNanos = System.nanoTime();
        Thread.ofVirtual().start(dtls::drain);
    }

    /** Connectivity check / consent refresh (RFC 7675). */
    public void check() {
        byte[] tid = new byte[12];
        RANDOM.nextBytes(tid);
        byte[] b = new byte[256];
        int n = new IceChecks().writeBindingRequest(b, 0, tid, remoteUfrag + ":" + local.ufrag(), 1_845_501_695L, true,
                RANDOM.nextLong(), true, remotePwd);
        send(b, 0, n);
    }

    public void send(byte[] b, int off, int len) {
        try {
            ch.write(ByteBuffer.wrap(b, off, len));
        } catch (IOException e) {
            if (!closed) throw new java.io.UncheckedIOException(e);
        }
    }

    /** SRTP packets that came before the keys (receive loop only), at most {@link #MAX_EARLY}. */
    private final java.util.ArrayDeque<Object[]> early = new java.util.ArrayDeque<>();
    private static final int MAX_EARLY = 512;

    private void receiveLoop() {
        ByteBuffer buf = ByteBuffer.allocate(2048);
        byte[] b = buf.array();
        try {
            while (!closed) {
                buf.clear();
                ch.receive(buf);
                int len = buf.position();
                long now = System.nanoTime();
                int first = b[0] & 0xFF;
                if (first < 4) {
                    StunMessage m = rxIce.parse(b, 0, len);
                    if (m != null && m.messageType() == IceChecks.BINDING_SUCCESS && IceChecks.verify(m, remotePwd)) iceDone = true;
                    else if (m != null && m.messageType() == IceChecks.BINDING_REQUEST) answerCheck(m);
                } else if (first >= 20 && first < 64) {
                    dtlsQueue.offer(b, 0, len);
                } else if (first >= 128 && first < 192) {
                    if (rx == null) {
                        // SRTP right behind the server's last DTLS flight, before our handshake thread has the keys:
                        // kept for when it does (a browser reads them in order after the handshake), not dropped
                        if (early.size() < MAX_EARLY) early.add(new Object[]{java.util.Arrays.copyOf(b, len), now});
                        continue;
                    }
                    while (!early.isEmpty()) {
                        Object[] e = early.poll();
                        byte[] eb = (byte[]) e[0];
                        sink.onSrtp(this, eb, eb.length, (Long) e[1]);
                    }
                    sink.onSrtp(this, b, len, now);
                }
            }
        } catch (IOException e) {
            // closed
        }
    }

    /**
     * Answers the server's own connectivity checks (a full ICE agent, or libnice in lite mode, which still sends
     * triggered checks and fails the pair without an answer; the Parley SFU sends none).
     */
    private void answerCheck(StunMessage m) throws IOException {
        byte[] pwd = local.pwdBytes();
        String username = IceChecks.username(m);
        if (username == null || !username.startsWith(local.ufrag() + ":") || !IceChecks.verify(m, pwd)) return;
        byte[] out = new byte[128];
        send(out, 0, rxIce.writeBindingSuccess(out, 0, m, (InetSocketAddress) ch.getRemoteAddress(), pwd));
    }

    @Override
    public void close() {
        closed = true;
        try { ch.close(); } catch (IOException ignored) { /* closing */ }
        if (dtlsQueue != null) dtlsQueue.close();
    }
}
