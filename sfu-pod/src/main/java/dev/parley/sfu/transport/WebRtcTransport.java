package dev.parley.sfu.transport;

import dev.parley.media.dtls.DtlsCertificate;
import dev.parley.media.dtls.DtlsEndpoint;
import dev.parley.media.dtls.DtlsSrtpKeys;
import dev.parley.media.dtls.QueueDatagramTransport;
import dev.parley.media.ice.IceCredentials;
import dev.parley.media.rtp.RtpPacket;
import dev.parley.media.srtp.SrtpContext;
import dev.parley.media.srtp.SrtpProfile;
import dev.parley.sfu.metrics.SfuMetrics;
import dev.parley.sfu.net.MediaIo;
import dev.parley.sfu.net.PacketPath;
import io.netty.channel.EventLoop;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * One ICE-lite + DTLS-SRTP transport (a browser peer connection with BUNDLE and rtcp-mux). Owned by the media
 * thread except for the DTLS handshake, which runs on its own virtual thread and hands keys back.
 */
public final class WebRtcTransport {
    private static final Logger LOG = LoggerFactory.getLogger(WebRtcTransport.class);
    /** RFC 7675: no valid connectivity check for this long and the transport is closed. */
    public static final long CONSENT_TIMEOUT_NANOS = 30_000_000_000L;

    public enum State { NEW, CONNECTING, CONNECTED, FAILED, CLOSED }

    private final String id;
    private final EventLoop loop;
    private final MediaIo io;
    private final DtlsCertificate certificate;
    private final List<SrtpProfile> profiles;
    private final SfuMetrics metrics;
    private final TransportListener listener;
    private final long createdNanos = System.nanoTime();
    private IceCredentials local;
    private String remoteUfrag;
    private String remoteFingerprint;
    private PacketPath selected;
    private long lastConsentNanos;
    private State state = State.NEW;
    private DtlsEndpoint dtls;
    private SrtpContext srtpIn, srtpOut;
    private final byte[] ctl = new byte[1600];

    public WebRtcTransport(String id, EventLoop loop, MediaIo io, DtlsCertificate certificate, List<SrtpProfile> profiles,
                           IceCredentials local, String remoteUfrag, String remoteFingerprint, SfuMetrics metrics,
                           TransportListener listener) {
        this.id = id;
        this.loop = loop;
        this.io = io;
        this.certificate = certificate;
        this.profiles = profiles;
        this.local = local;
        this.remoteUfrag = remoteUfrag;
        this.remoteFingerprint = remoteFingerprint;
        this.metrics = metrics;
        this.listener = listener;
    }

    public String id() { return id; }
    public IceCredentials localCredentials() { return local; }
    public String remoteUfrag() { return remoteUfrag; }
    public State state() { return state; }
    public boolean connected() { return state == State.CONNECTED; }
    public PacketPath selectedPath() { return selected; }
    public boolean isTcp() { return selected != null && selected.isTcp(); }

    /** ICE restart: new credentials; the DTLS association and SRTP keys stay, the path swaps on the next check. */
    public void restartIce(IceCredentials newLocal, String newRemoteUfrag) {
        this.local = newLocal;
        this.remoteUfrag = newRemoteUfrag;
    }

    /** A binding request authenticated with our password arrived on {@code path}. */
    public void onValidCheck(PacketPath path, boolean useCandidate, long now) {
        if (state == State.CLOSED || state == State.FAILED) return;
        lastConsentNanos = now;
        if (selected == null || useCandidate) selected = path;
        if (state == State.NEW) { startDtls(); listener.onHandshakeStarted(this); }
    }

    private void startDtls() {
        state = State.CONNECTING;
        QueueDatagramTransport q = new QueueDatagramTransport((b, o, l) -> {
            byte[] copy = new byte[l];
            System.arraycopy(b, o, copy, 0, l);
            loop.execute(() -> {
                if (selected != null) { selected.send(copy, 0, copy.length); io.flush(); }
            });
        });
        DtlsEndpoint d = new DtlsEndpoint(true, certificate, remoteFingerprint, profiles, q);
        dtls = d;
        Thread.ofVirtual().name("dtls-" + id).start(() -> {
            try {
                DtlsSrtpKeys keys;
                try {
                    keys = d.handshake();
                } finally {
                    countRejectedHellos(d);
                }
                SrtpContext in = keys.inbound(), out = keys.outbound();
                loop.execute(() -> {
                    if (state != State.CONNECTING) return;
                    srtpIn = in;
                    srtpOut = out;
                    state = State.CONNECTED;
                    LOG.info("transport {} connected over {} ({})", id, selected, keys.profile());
                    listener.onConnected(this);
                });
                d.drain();
            } catch (Exception e) {
                LOG.info("transport {} DTLS failed: {}", id, e.getMessage());
                loop.execute(() -> fail("dtls: " + e.getMessage()));
            }
        });
    }

    private void countRejectedHellos(DtlsEndpoint d) {
        long n = d.rejectedHellos();
        if (n > 0) metrics.drop("dtls_hello_rejected", n);
    }

    /**
     * DTLS record from the network (media thread). Invalid records are discarded and counted, never fatal
     * (RFC 6347 §4.1.2.7): the handshake goes on.
     */
    public void onDtls(byte[] b, int off, int len) {
        DtlsEndpoint d = dtls;
        if (d == null) { metrics.drop("dtls_no_handshake"); return; }
        switch (d.offer(b, off, len)) {
            case QUEUED -> { }
            case MALFORMED -> metrics.drop("dtls_malformed");
            case UNEXPECTED -> metrics.drop("dtls_unexpected");
            case QUEUE_FULL -> metrics.drop("dtls_queue");
        }
    }

    /** SRTP or SRTCP from the network (media thread): authenticate, decrypt, hand on. */
    public void onSrtp(byte[] b, int off, int len, long now) {
        if (state != State.CONNECTED) { metrics.drop("not_connected"); return; }
        if (RtpPacket.isRtcp(b, off, len)) {
            int n = srtpIn.unprotectRtcp(b, off, len);
            if (n < 0) { srtpError(n); return; }
            listener.onRtcp(this, b, off, n, now);
        } else {
            int n = srtpIn.unprotectRtp(b, off, len);
            if (n < 0) { srtpError(n); return; }
            listener.onRtp(this, b, off, n, now);
        }
    }

    private void srtpError(int code) {
        switch (code) {
            case SrtpContext.ERR_AUTH -> { metrics.srtpAuthFailures.increment(); metrics.drop("srtp_auth"); }
            case SrtpContext.ERR_REPLAY -> metrics.drop("srtp_replay");
            default -> metrics.drop("srtp_malformed");
        }
    }

    /**
     * Protects and sends an RTP packet built in {@code b} (which must have {@code rtpOverhead} spare bytes).
     * Returns false if it could not be sent.
     */
    private int lastRtpWireLength;

    /** Size of the last RTP packet {@link #sendRtp} sent, SRTP tag included (what congestion control counts). */
    public int lastRtpWireLength() { return lastRtpWireLength; }

    public boolean sendRtp(byte[] b, int off, int len) {
        if (state != State.CONNECTED || selected == null) return false;
        if (!selected.writable()) { metrics.drop("send_queue_full"); return false; }
        int n = srtpOut.protectRtp(b, off, len);
        if (n < 0) { metrics.drop(n == SrtpContext.ERR_NONCE_REUSE ? "srtp_nonce_reuse" : "srtp_protect"); return false; }
        if (!selected.send(b, off, n)) { metrics.drop("send_queue_full"); return false; }
        metrics.egressBytes.add(n);
        lastRtpWireLength = n;
        return true;
    }

    /** Protects and sends an RTCP compound packet (copied; {@code b} is not modified). */
    public boolean sendRtcp(byte[] b, int off, int len) {
        if (state != State.CONNECTED || selected == null || len + 32 > ctl.length) return false;
        System.arraycopy(b, off, ctl, 0, len);
        int n = srtpOut.protectRtcp(ctl, 0, len);
        if (n < 0) return false;
        metrics.egressBytes.add(n);
        return selected.send(ctl, 0, n);
    }

    public void onPathClosed(PacketPath path) {
        if (path == selected) selected = null;
    }

    /** Consent freshness (media thread, periodic): true if the transport just expired. */
    public boolean checkConsent(long now) { return checkConsent(now, CONSENT_TIMEOUT_NANOS); }

    /** Consent freshness with a configured timeout (tests shorten it). */
    public boolean checkConsent(long now, long timeoutNanos) {
        if (state == State.CLOSED || state == State.FAILED) return false;
        long since = lastConsentNanos == 0 ? now - createdNanos : now - lastConsentNanos;
        if (since > timeoutNanos) {
            fail("consent expired");
            return true;
        }
        return false;
    }

    private void fail(String reason) {
        if (state == State.CLOSED || state == State.FAILED) return;
        state = State.FAILED;
        closeDtls();
        listener.onFailed(this, reason);
    }

    public void close() {
        if (state == State.CLOSED) return;
        state = State.CLOSED;
        closeDtls();
        if (selected != null && selected.isTcp()) selected.close();
    }

    private void closeDtls() {
        DtlsEndpoint d = dtls;
        if (d != null) Thread.ofVirtual().start(d::close);
        srtpIn = null;
        srtpOut = null;
    }

    public int rtpOverhead() { return srtpOut == null ? 16 : srtpOut.rtpOverhead(); }
}
