package dev.parley.recorder.sfu;

import dev.parley.media.dtls.DtlsCertificate;
import dev.parley.media.dtls.DtlsEndpoint;
import dev.parley.media.dtls.DtlsSrtpKeys;
import dev.parley.media.dtls.QueueDatagramTransport;
import dev.parley.media.ice.IceCredentials;
import dev.parley.media.ice.IceChecks;
import dev.parley.media.rtcp.Rtcp;
import dev.parley.media.rtp.RtpPacket;
import dev.parley.media.srtp.SrtpContext;
import dev.parley.media.srtp.SrtpProfile;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The browser's side of one peer connection toward the SFU, built on media-core: ICE controlling agent (Binding
 * requests with USE-CANDIDATE toward the SFU's ICE-lite UDP candidate, then consent refreshes), DTLS client,
 * SRTP. One UDP socket; one receive thread that decrypts in place and hands cleartext RTP to a
 * {@link Receiver} (no allocation per packet). The SFU is always the answerer, so the offer comes from us.
 */
public final class ClientPeerConnection implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ClientPeerConnection.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    /** RFC 7675 consent freshness: the SFU closes a transport after 30 s without checks. */
    private static final long CONSENT_INTERVAL_NANOS = 2_000_000_000L;
    private static final int MAX_DATAGRAM = 1500;

    /** Gets cleartext RTP or RTCP (after SRTP), on the receive thread; bytes valid during the call only. */
    public interface Receiver {
        void onRtp(byte[] b, int len);

        default void onRtcp(byte[] b, int len) {
        }
    }

    private final DtlsCertificate certificate;
    private final IceCredentials local = IceCredentials.random();
    /** Connectivity checks: one STUN writer for sendCheck (synchronized), one view for the receive loop. */
    private final IceChecks checkIce = new IceChecks();
    private final IceChecks rxIce = new IceChecks();
    private final DatagramChannel channel;
    private final long tieBreaker = RANDOM.nextLong();
    private final byte[] stunOut = new byte[256];
    private final byte[] rtcpOut = new byte[MAX_DATAGRAM];
    private final AtomicLong authFailures = new AtomicLong();
    private final AtomicLong received = new AtomicLong();
    private volatile boolean iceConnected;
    private volatile boolean closed;
    private volatile long lastCheckNanos;
    private volatile Receiver receiver;
    private String remoteUfrag;
    private byte[] remotePwd;
    private QueueDatagramTransport dtlsQueue;
    private DtlsEndpoint dtls;
    private volatile SrtpContext rx;
    private volatile SrtpContext tx;
    private Thread readThread;

    /** Binds one UDP socket on {@code bind} (port 0). */
    public ClientPeerConnection(DtlsCertificate certificate, InetAddress bind) throws IOException {
        this.certificate = certificate;
        this.channel = DatagramChannel.open();
        channel.setOption(java.net.StandardSocketOptions.SO_RCVBUF, 4 * 1024 * 1024);
        channel.bind(new InetSocketAddress(bind, 0));
    }

    /** ICE credentials, fingerprint and DTLS role: the lines every m= section of our offer carries. */
    public String transportLines() {
        return "a=ice-ufrag:" + local.ufrag() + "\r\na=ice-pwd:" + local.pwd() + "\r\na=fingerprint:sha-256 "
                + certificate.fingerprint() + "\r\na=setup:actpass\r\na=rtcp-mux\r\n";
    }

    /**
     * Applies the SFU's answer: connectivity checks until one is answered, then the DTLS handshake as client
     * (blocking, bounded by {@code timeoutMs} for ICE and the DTLS handshake timeout).
     */
    public void connect(SfuAnswer answer, Receiver receiver, long timeoutMs) throws IOException {
        this.receiver = receiver;
        remoteUfrag = answer.iceUfrag();
        remotePwd = answer.icePwd().getBytes(StandardCharsets.UTF_8);
        channel.connect(answer.udpCandidate());
        dtlsQueue = new QueueDatagramTransport(this::send);
        readThread = Thread.ofPlatform().daemon().name("sfu-in-" + channel.socket().getLocalPort()).start(this::receiveLoop);
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (!iceConnected) {
            if (closed) {
                throw new IOException("closed while connecting");
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("ICE: no answer to connectivity checks from " + answer.udpCandidate());
            }
            sendCheck();
            sleep(50);
        }
        dtls = new DtlsEndpoint(false, certificate, answer.fingerprint(),
                List.of(SrtpProfile.AES128_CM_HMAC_SHA1_80), dtlsQueue);
        DtlsSrtpKeys keys = dtls.handshake();
        tx = keys.outbound();
        rx = keys.inbound();
        Thread.ofPlatform().daemon().name("sfu-dtls-" + channel.socket().getLocalPort()).start(dtls::drain);
    }

    /** Sends a consent refresh when one is due; call periodically (the recorder's timer does). */
    public void keepAlive() {
        if (iceConnected && !closed && System.nanoTime() - lastCheckNanos > CONSENT_INTERVAL_NANOS) {
            sendCheck();
        }
    }

    /** Asks the sender of {@code mediaSsrc} for a keyframe (RTCP PLI, RFC 4585). */
    public synchronized void requestKeyframe(int senderSsrc, int mediaSsrc) {
        SrtpContext t = tx;
        if (t == null || closed) {
            return;
        }
        int n = Rtcp.writePli(rtcpOut, 0, senderSsrc, mediaSsrc);
        int p = t.protectRtcp(rtcpOut, 0, n);
        if (p > 0) {
            send(rtcpOut, 0, p);
        }
    }

    /** Encrypts {@code len} bytes of RTP in {@code b} in place and sends them (publishing side, tests). */
    public synchronized boolean sendRtp(byte[] b, int len) {
        SrtpContext t = tx;
        if (t == null || closed) {
            return false;
        }
        int n = t.protectRtp(b, 0, len);
        if (n <= 0) {
            return false;
        }
        send(b, 0, n);
        return true;
    }

    public boolean connected() {
        return rx != null && !closed;
    }

    public long received() {
        return received.get();
    }

    public long authFailures() {
        return authFailures.get();
    }

    private synchronized void sendCheck() {
        byte[] tid = new byte[12];
        RANDOM.nextBytes(tid);
        int n = checkIce.writeBindingRequest(stunOut, 0, tid, remoteUfrag + ":" + local.ufrag(), 1_845_501_695L, true,
                tieBreaker, true, remotePwd);
        lastCheckNanos = System.nanoTime();
        send(stunOut, 0, n);
    }

    private void send(byte[] b, int off, int len) {
        try {
            channel.write(ByteBuffer.wrap(b, off, len));
        } catch (IOException e) {
            if (!closed) {
                LOG.debug("send to the SFU failed: {}", e.toString());
            }
        }
    }

    private void receiveLoop() {
        ByteBuffer buf = ByteBuffer.allocate(MAX_DATAGRAM + 1);
        byte[] b = buf.array();
        while (!closed) {
            int len;
            try {
                buf.clear();
                channel.receive(buf);
                len = buf.position();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (!closed) {
                    LOG.debug("receive from the SFU failed: {}", e.toString());
                }
                continue;
            }
            if (len == 0 || len > MAX_DATAGRAM) {
                continue;
            }
            int first = b[0] & 0xFF;
            if (first < 4) {
                var m = rxIce.parse(b, 0, len);
                if (m != null && m.messageType() == IceChecks.BINDING_SUCCESS && IceChecks.verify(m, remotePwd)) {
                    iceConnected = true;
                }
            } else if (first >= 20 && first < 64) {
                dtlsQueue.offer(b, 0, len);
            } else if (first >= 128 && first < 192) {
                onSrtp(b, len);
            }
        }
    }

    private void onSrtp(byte[] b, int len) {
        SrtpContext r = rx;
        Receiver out = receiver;
        if (r == null || out == null || len < RtpPacket.FIXED_HEADER) {
            return;
        }
        if (RtpPacket.isRtcp(b, 0, len)) {
            int n = r.unprotectRtcp(b, 0, len);
            if (n > 0) {
                out.onRtcp(b, n);
            } else {
                authFailures.incrementAndGet();
            }
            return;
        }
        int n = r.unprotectRtp(b, 0, len);
        if (n < 0) {
            if (n != SrtpContext.ERR_REPLAY) {
                authFailures.incrementAndGet();
            }
            return;
        }
        received.incrementAndGet();
        out.onRtp(b, n);
    }

    private static void sleep(long ms) throws IOException {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    @Override
    public void close() {
        closed = true;
        if (dtls != null) {
            dtls.close();
        } else if (dtlsQueue != null) {
            dtlsQueue.close();
        }
        try {
            channel.close();
        } catch (IOException e) {
            LOG.debug("closing the SFU socket: {}", e.toString());
        }
        if (readThread != null) {
            readThread.interrupt();
        }
    }
}
