package dev.parley.media.dtls;

import dev.parley.media.srtp.SrtpProfile;
import org.bouncycastle.tls.AlertDescription;
import org.bouncycastle.tls.Certificate;
import org.bouncycastle.tls.CertificateRequest;
import org.bouncycastle.tls.CipherSuite;
import org.bouncycastle.tls.ClientCertificateType;
import org.bouncycastle.tls.DTLSClientProtocol;
import org.bouncycastle.tls.DTLSServerProtocol;
import org.bouncycastle.tls.DTLSTransport;
import org.bouncycastle.tls.DefaultTlsClient;
import org.bouncycastle.tls.DefaultTlsServer;
import org.bouncycastle.tls.ExporterLabel;
import org.bouncycastle.tls.HashAlgorithm;
import org.bouncycastle.tls.ProtocolVersion;
import org.bouncycastle.tls.SignatureAlgorithm;
import org.bouncycastle.tls.SignatureAndHashAlgorithm;
import org.bouncycastle.tls.TlsAuthentication;
import org.bouncycastle.tls.TlsContext;
import org.bouncycastle.tls.TlsCredentialedSigner;
import org.bouncycastle.tls.TlsCredentials;
import org.bouncycastle.tls.TlsFatalAlert;
import org.bouncycastle.tls.TlsSRTPUtils;
import org.bouncycastle.tls.TlsServerCertificate;
import org.bouncycastle.tls.TlsUtils;
import org.bouncycastle.tls.UseSRTPData;
import org.bouncycastle.tls.crypto.TlsCryptoParameters;
import org.bouncycastle.tls.crypto.impl.bc.BcDefaultTlsCredentialedSigner;
import org.bouncycastle.tls.crypto.impl.bc.BcTlsCrypto;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.security.SecureRandom;
import java.util.Hashtable;
import java.util.List;
import java.util.Vector;
import java.util.concurrent.atomic.AtomicLong;

/**
 * DTLS 1.2 handshake for DTLS-SRTP (RFC 5764) in either role, on BouncyCastle's bctls. {@link #handshake()}
 * blocks (run it off the network thread); afterwards {@link #drain()} keeps answering retransmitted flights
 * and notices close_notify. Records from the network go through {@link #offer}, which discards invalid ones
 * (RFC 6347 §4.1.2.7) instead of letting them end the handshake.
 */
public final class DtlsEndpoint {
    private static final Logger LOG = LoggerFactory.getLogger(DtlsEndpoint.class);
    /**
     * AEAD only: RFC 8827 §6.5 makes ECDHE-ECDSA-AES128-GCM mandatory for WebRTC, and with CBC suites a
     * protected record of the wrong length is a decode_error in BouncyCastle rather than a silent drop.
     */
    private static final int[] SUITES = {
            CipherSuite.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
            CipherSuite.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
            CipherSuite.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
    };
    /** AES-GCM records carry an 8-byte explicit nonce and a 16-byte tag. */
    private static final int GCM_OVERHEAD = 8 + 16;
    /** A handshake that has not finished by then fails instead of holding its thread. */
    public static final int HANDSHAKE_TIMEOUT_MS = 15_000;
    /** At most one debug line per this interval for discarded records, whatever the rate. */
    private static final long DROP_LOG_INTERVAL_NANOS = 10_000_000_000L;
    private static final AtomicLong nextDropLog = new AtomicLong(System.nanoTime());
    private static final BcTlsCrypto CRYPTO = new BcTlsCrypto(new SecureRandom());

    /** What became of a datagram handed to {@link #offer}. */
    public enum Offer {
        QUEUED,
        /** Not well-formed DTLS (RFC 6347 §4.1.2.7): discarded. */
        MALFORMED,
        /** Well-formed but not acceptable now: not a ClientHello before our first flight, a handshake message
         *  of the wrong role, a plaintext alert. */
        UNEXPECTED,
        /** The handshake thread is not keeping up, or the endpoint is closed. */
        QUEUE_FULL
    }

    private final boolean server;
    private final DtlsCertificate certificate;
    private final String remoteFingerprint;
    private final List<SrtpProfile> profiles;
    private final QueueDatagramTransport transport;
    private volatile DTLSTransport dtls;
    private volatile DtlsSrtpKeys keys;
    /** Server only: nothing sent yet, so only ClientHellos are let through. */
    private volatile boolean awaitingHello;
    /** Smallest epoch-1 record the negotiated cipher decodes without raising an alert. */
    private volatile int minProtected = DtlsRecords.MIN_PROTECTED;
    private final AtomicLong rejectedHellos = new AtomicLong();

    /**
     * @param profiles in preference order; the server picks its first that the client offers
     * @param remoteFingerprint SHA-256 fingerprint hex from the peer's SDP
     */
    public DtlsEndpoint(boolean server, DtlsCertificate certificate, String remoteFingerprint,
                        List<SrtpProfile> profiles, QueueDatagramTransport transport) {
        this.server = server;
        this.certificate = certificate;
        this.remoteFingerprint = remoteFingerprint;
        this.profiles = List.copyOf(profiles);
        this.transport = transport;
        this.awaitingHello = server;
    }

    public QueueDatagramTransport transport() { return transport; }

    /**
     * A datagram from the network (any thread): queued for the handshake if it is valid DTLS the handshake can
     * take now, else discarded (counted by the caller, logged here at debug, rate-limited).
     */
    public Offer offer(byte[] b, int off, int len) {
        DtlsRecords.Rule rule = !server ? DtlsRecords.Rule.FROM_SERVER
                : awaitingHello ? DtlsRecords.Rule.CLIENT_HELLO_ONLY : DtlsRecords.Rule.FROM_CLIENT;
        int n = DtlsRecords.check(b, off, len, rule, minProtected);
        if (n < 0) {
            Offer o = n == DtlsRecords.UNEXPECTED ? Offer.UNEXPECTED : Offer.MALFORMED;
            if (LOG.isDebugEnabled() && mayLogDrop()) {
                LOG.debug("discarded a {} DTLS datagram ({} bytes, content type {}); others for 10 s are only counted",
                        o.name().toLowerCase(java.util.Locale.ROOT), len, len > 0 ? b[off] & 0xFF : -1);
            }
            return o;
        }
        return transport.offer(b, off, len) ? Offer.QUEUED : Offer.QUEUE_FULL;
    }

    /** ClientHellos BouncyCastle rejected before our first flight (each one restarted the server handshake). */
    public long rejectedHellos() { return rejectedHellos.get(); }

    /** True at most once per {@link #DROP_LOG_INTERVAL_NANOS} in this process: a flood of junk is one line. */
    private static boolean mayLogDrop() {
        long now = System.nanoTime(), next = nextDropLog.get();
        return now - next >= 0 && nextDropLog.compareAndSet(next, now + DROP_LOG_INTERVAL_NANOS);
    }

    /** Runs the handshake to completion; throws IOException on failure or fingerprint mismatch. */
    public DtlsSrtpKeys handshake() throws IOException {
        if (server) {
            dtls = accept(System.nanoTime() + HANDSHAKE_TIMEOUT_MS * 1_000_000L);
        } else {
            HandshakeAttempt view = new HandshakeAttempt(transport, () -> { });
            view.own(); // a client's handshake gets one attempt: its failure is final, as before
            dtls = new DTLSClientProtocol().connect(new Client(), view);
        }
        if (keys == null) throw new IOException("no SRTP keys negotiated");
        return keys;
    }

    /**
     * Server handshake attempts until one succeeds or fails after our first flight. A ClientHello BouncyCastle
     * rejects before that (garbage that parsed as one) costs nothing but a fresh attempt: no state was shared
     * with the real client yet. All attempts together keep to the one handshake deadline.
     */
    private DTLSTransport accept(long deadlineNanos) throws IOException {
        while (true) {
            HandshakeAttempt attempt = new HandshakeAttempt(transport, () -> awaitingHello = false);
            DTLSServerProtocol p = new DTLSServerProtocol();
            // ICE connectivity checks already proved address ownership; skip the cookie exchange.
            p.setVerifyRequests(false);
            try {
                DTLSTransport t = p.accept(new Server(deadlineNanos), attempt);
                attempt.own();
                return t;
            } catch (IOException e) {
                if (attempt.spoken() || transport.isClosed() || System.nanoTime() - deadlineNanos >= 0) throw e;
                rejectedHellos.incrementAndGet();
                if (LOG.isDebugEnabled() && mayLogDrop()) {
                    LOG.debug("discarded a ClientHello the handshake rejected ({}); waiting for the next", e.getMessage());
                }
            }
        }
    }

    /** After the handshake: reads (and discards) records until the peer closes or the transport closes. */
    public void drain() {
        byte[] buf = new byte[1500];
        try {
            while (!transport.isClosed()) {
                dtls.receive(buf, 0, buf.length, 1000);
            }
        } catch (IOException ignored) {
            // closed or peer alert: the transport's owner notices via consent/ICE
        }
    }

    public void close() {
        DTLSTransport t = dtls;
        if (t != null) {
            try { t.close(); } catch (IOException ignored) { /* best effort close_notify */ }
        }
        transport.close();
    }

    public DtlsSrtpKeys keys() { return keys; }

    private int[] profileIds() {
        int[] ids = new int[profiles.size()];
        for (int i = 0; i < ids.length; i++) ids[i] = profiles.get(i).dtlsId;
        return ids;
    }

    private TlsCredentialedSigner signer(TlsContext context) throws IOException {
        Certificate chain = new Certificate(new org.bouncycastle.tls.crypto.TlsCertificate[]{
                CRYPTO.createCertificate(certificate.der())});
        return new BcDefaultTlsCredentialedSigner(new TlsCryptoParameters(context), CRYPTO, certificate.privateKey(),
                chain, SignatureAndHashAlgorithm.getInstance(HashAlgorithm.sha256, SignatureAlgorithm.ecdsa));
    }

    private void checkPeer(Certificate peer) throws IOException {
        if (peer == null || peer.isEmpty()) throw new TlsFatalAlert(AlertDescription.bad_certificate);
        byte[] der = peer.getCertificateAt(0).getEncoded();
        if (!DtlsCertificate.matches(remoteFingerprint, der)) {
            throw new TlsFatalAlert(AlertDescription.bad_certificate, "fingerprint does not match the SDP");
        }
    }

    private void exportKeys(TlsContext context, SrtpProfile p) {
        byte[] km = context.exportKeyingMaterial(ExporterLabel.dtls_srtp, null, 2 * (p.keyLength + p.saltLength));
        keys = DtlsSrtpKeys.fromExporter(p, km, server);
    }

    /** The smallest protected record the suite decodes without BouncyCastle raising decode_error. */
    private static int minProtected(int suite) {
        return TlsUtils.getEncryptionAlgorithm(suite) == org.bouncycastle.tls.EncryptionAlgorithm.CHACHA20_POLY1305
                ? DtlsRecords.MIN_PROTECTED : GCM_OVERHEAD;
    }

    private final class Server extends DefaultTlsServer {
        private final long deadlineNanos;
        private SrtpProfile chosen;

        Server(long deadlineNanos) {
            super(CRYPTO);
            this.deadlineNanos = deadlineNanos;
        }

        @Override
        public int getHandshakeTimeoutMillis() {
            return (int) Math.max(1, (deadlineNanos - System.nanoTime()) / 1_000_000);
        }

        @Override
        public int getSelectedCipherSuite() throws IOException {
            int suite = super.getSelectedCipherSuite();
            minProtected = minProtected(suite);
            return suite;
        }

        @Override protected ProtocolVersion[] getSupportedVersions() { return ProtocolVersion.DTLSv12.only(); }
        @Override protected int[] getSupportedCipherSuites() { return TlsUtils.getSupportedCipherSuites(CRYPTO, SUITES); }
        @Override protected TlsCredentialedSigner getECDSASignerCredentials() throws IOException { return signer(context); }

        @SuppressWarnings("rawtypes") // BouncyCastle's TLS API declares these extension maps as raw Hashtable
        @Override
        public void processClientExtensions(Hashtable clientExtensions) throws IOException {
            super.processClientExtensions(clientExtensions);
            UseSRTPData offered = TlsSRTPUtils.getUseSRTPExtension(clientExtensions);
            if (offered == null) throw new TlsFatalAlert(AlertDescription.handshake_failure, "no use_srtp");
            for (SrtpProfile p : profiles) {
                for (int id : offered.getProtectionProfiles()) {
                    if (id == p.dtlsId) { chosen = p; return; }
                }
            }
            throw new TlsFatalAlert(AlertDescription.handshake_failure, "no common SRTP profile");
        }

        @SuppressWarnings("rawtypes") // BouncyCastle's TLS API declares these extension maps as raw Hashtable
        @Override
        public Hashtable getServerExtensions() throws IOException {
            Hashtable ext = super.getServerExtensions();
            TlsSRTPUtils.addUseSRTPExtension(ext, new UseSRTPData(new int[]{chosen.dtlsId}, TlsUtils.EMPTY_BYTES));
            return ext;
        }

        @Override
        public CertificateRequest getCertificateRequest() {
            Vector<?> algs = TlsUtils.getDefaultSupportedSignatureAlgorithms(context);
            return new CertificateRequest(new short[]{ClientCertificateType.ecdsa_sign, ClientCertificateType.rsa_sign}, algs, null);
        }

        @Override
        public void notifyClientCertificate(Certificate clientCertificate) throws IOException { checkPeer(clientCertificate); }

        @Override
        public void notifyHandshakeComplete() throws IOException {
            super.notifyHandshakeComplete();
            exportKeys(context, chosen);
        }
    }

    private final class Client extends DefaultTlsClient {
        private SrtpProfile chosen;

        Client() { super(CRYPTO); }

        @Override public int getHandshakeTimeoutMillis() { return HANDSHAKE_TIMEOUT_MS; }

        @Override
        public void notifySelectedCipherSuite(int selectedCipherSuite) {
            super.notifySelectedCipherSuite(selectedCipherSuite);
            minProtected = minProtected(selectedCipherSuite);
        }

        @Override protected ProtocolVersion[] getSupportedVersions() { return ProtocolVersion.DTLSv12.only(); }
        @Override protected int[] getSupportedCipherSuites() { return TlsUtils.getSupportedCipherSuites(CRYPTO, SUITES); }

        @SuppressWarnings("rawtypes") // BouncyCastle's TLS API declares these extension maps as raw Hashtable
        @Override
        public Hashtable getClientExtensions() throws IOException {
            Hashtable ext = super.getClientExtensions();
            TlsSRTPUtils.addUseSRTPExtension(ext, new UseSRTPData(profileIds(), TlsUtils.EMPTY_BYTES));
            return ext;
        }

        @SuppressWarnings("rawtypes") // BouncyCastle's TLS API declares these extension maps as raw Hashtable
        @Override
        public void processServerExtensions(Hashtable serverExtensions) throws IOException {
            super.processServerExtensions(serverExtensions);
            UseSRTPData d = TlsSRTPUtils.getUseSRTPExtension(serverExtensions);
            if (d == null || d.getProtectionProfiles().length != 1) throw new TlsFatalAlert(AlertDescription.illegal_parameter);
            chosen = SrtpProfile.byDtlsId(d.getProtectionProfiles()[0]);
            if (chosen == null || !profiles.contains(chosen)) throw new TlsFatalAlert(AlertDescription.illegal_parameter);
        }

        @Override
        public TlsAuthentication getAuthentication() {
            return new TlsAuthentication() {
                @Override
                public void notifyServerCertificate(TlsServerCertificate serverCertificate) throws IOException {
                    checkPeer(serverCertificate.getCertificate());
                }

                @Override
                public TlsCredentials getClientCredentials(CertificateRequest certificateRequest) throws IOException {
                    return signer(context);
                }
            };
        }

        @Override
        public void notifyHandshakeComplete() throws IOException {
            super.notifyHandshakeComplete();
            exportKeys(context, chosen);
        }
    }
}
