package dev.parley.media.dtls;

import dev.parley.media.srtp.SrtpProfile;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DtlsEndpointTest {
    private static final DtlsCertificate SERVER_CERT = DtlsCertificate.generate();
    private static final DtlsCertificate CLIENT_CERT = DtlsCertificate.generate();
    /** Own threads: the common pool may have a single worker on a 2-core machine. */
    private static final java.util.concurrent.Executor POOL = r -> Thread.ofPlatform().daemon().start(r);

    /** Wires two endpoints back to back through their queues. */
    private static DtlsEndpoint[] pair(String fpOfClientSeenByServer, String fpOfServerSeenByClient,
                                       List<SrtpProfile> serverPrefs, List<SrtpProfile> clientPrefs) {
        AtomicReference<QueueDatagramTransport> s = new AtomicReference<>(), c = new AtomicReference<>();
        QueueDatagramTransport st = new QueueDatagramTransport((b, o, l) -> c.get().offer(b, o, l));
        QueueDatagramTransport ct = new QueueDatagramTransport((b, o, l) -> s.get().offer(b, o, l));
        s.set(st);
        c.set(ct);
        return new DtlsEndpoint[]{
                new DtlsEndpoint(true, SERVER_CERT, fpOfClientSeenByServer, serverPrefs, st),
                new DtlsEndpoint(false, CLIENT_CERT, fpOfServerSeenByClient, clientPrefs, ct)};
    }

    @Test
    void serverAndClientAgreeOnProfileAndCrossedKeys() throws Exception {
        DtlsEndpoint[] p = pair(CLIENT_CERT.fingerprint(), SERVER_CERT.fingerprint(),
                List.of(SrtpProfile.AEAD_AES_128_GCM, SrtpProfile.AES128_CM_HMAC_SHA1_80),
                List.of(SrtpProfile.AES128_CM_HMAC_SHA1_80, SrtpProfile.AEAD_AES_128_GCM));
        CompletableFuture<DtlsSrtpKeys> server = CompletableFuture.supplyAsync(() -> run(p[0]), POOL);
        DtlsSrtpKeys client = p[1].handshake();
        DtlsSrtpKeys srv = server.get(20, TimeUnit.SECONDS);
        assertThat(srv.profile()).isEqualTo(SrtpProfile.AEAD_AES_128_GCM);
        assertThat(client.profile()).isEqualTo(SrtpProfile.AEAD_AES_128_GCM);
        assertThat(srv.localKey()).isEqualTo(client.remoteKey());
        assertThat(srv.remoteSalt()).isEqualTo(client.localSalt());
        assertThat(srv.localKey()).isNotEqualTo(srv.remoteKey());
        // keys work end to end: client protects, server unprotects
        byte[] pkt = new byte[64];
        pkt[0] = (byte) 0x80; pkt[1] = 111; pkt[11] = 5;
        int n = client.outbound().protectRtp(pkt, 0, 40);
        assertThat(srv.inbound().unprotectRtp(pkt, 0, n)).isEqualTo(40);
        p[0].close();
        p[1].close();
    }

    @Test
    void fingerprintMismatchFailsTheHandshake() {
        DtlsEndpoint[] p = pair(SERVER_CERT.fingerprint() /* wrong: not the client's */, SERVER_CERT.fingerprint(),
                List.of(SrtpProfile.AES128_CM_HMAC_SHA1_80), List.of(SrtpProfile.AES128_CM_HMAC_SHA1_80));
        CompletableFuture<DtlsSrtpKeys> server = CompletableFuture.supplyAsync(() -> run(p[0]), POOL);
        CompletableFuture.supplyAsync(() -> run(p[1]), POOL);
        assertThatThrownBy(() -> server.get(20, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
        p[0].close();
        p[1].close();
    }

    /**
     * Well-framed records that BouncyCastle rejects while it waits for the ClientHello (a garbage ClientHello:
     * decode_error; another message type: unexpected_message; a fatal alert) must not end the server's handshake:
     * nothing was sent yet, so it starts over and the real client still connects.
     */
    @Test
    void recordsRejectedBeforeTheFirstFlightDoNotEndTheServerHandshake() throws Exception {
        DtlsEndpoint[] p = pair(CLIENT_CERT.fingerprint(), SERVER_CERT.fingerprint(),
                List.of(SrtpProfile.AEAD_AES_128_GCM), List.of(SrtpProfile.AEAD_AES_128_GCM));
        CompletableFuture<DtlsSrtpKeys> server = CompletableFuture.supplyAsync(() -> run(p[0]), POOL);
        byte[][] junk = {
                DtlsRecordsTest.record(22, 0xFEFD, 0, 0, DtlsRecordsTest.fragment(1, 8, 0, 0, new byte[]{1, 2, 3, 4, 5, 6, 7, 8})),
                DtlsRecordsTest.record(22, 0xFEFD, 0, 1, DtlsRecordsTest.fragment(16, 4, 0, 0, new byte[]{9, 9, 9, 9})),
                DtlsRecordsTest.record(21, 0xFEFD, 0, 2, new byte[]{2, 40}),
        };
        for (byte[] j : junk) {
            p[0].transport().offer(j, 0, j.length);
            Thread.sleep(50); // one at a time, each reaches the waiting handshake
        }
        CompletableFuture<DtlsSrtpKeys> client = CompletableFuture.supplyAsync(() -> run(p[1]), POOL);
        DtlsSrtpKeys srv = server.get(20, TimeUnit.SECONDS);
        assertThat(srv.localKey()).isEqualTo(client.get(20, TimeUnit.SECONDS).remoteKey());
        assertThat(p[0].rejectedHellos()).isEqualTo(junk.length);
        p[0].close();
        p[1].close();
    }

    /**
     * Through {@link DtlsEndpoint#offer} (the SFU's path), both directions: junk before every datagram of every
     * flight, framing junk and well-framed records BouncyCastle would raise an alert for, is discarded and
     * counted, and the handshake completes with working keys.
     */
    @Test
    void junkBeforeEveryFlightIsDiscardedAndTheHandshakeCompletes() throws Exception {
        byte[][] junk = {
                DtlsRecordsTest.hex("16fefd 0000 000000000000 0064 0102030405"),                                      // truncated
                DtlsRecordsTest.hex("2a0102030405060708090a0b0c0d0e0f10"),                                          // noise
                DtlsRecordsTest.record(22, 0xFEFD, 0, 0, DtlsRecordsTest.fragment(0x63, 4, 0, 0, new byte[4])),       // unknown type
                DtlsRecordsTest.record(22, 0xFEFD, 0, 1, DtlsRecordsTest.fragment(1, 8, 0, 0, new byte[8])),          // garbage hello
                DtlsRecordsTest.record(21, 0xFEFD, 0, 2, new byte[]{2, 40}),                                         // plaintext fatal alert
                DtlsRecordsTest.record(22, 0xFEFD, 1, 3, new byte[10]),                                              // epoch 1, too short
                // well-formed, far-ahead record number: must not push the replay window past the real records
                DtlsRecordsTest.record(22, 0xFEFD, 0, 0xFF_FFFF_FFFFL, DtlsRecordsTest.fragment(11, 4, 60, 0, new byte[4])),
        };
        java.util.Map<DtlsEndpoint.Offer, java.util.concurrent.atomic.AtomicInteger> seen = new java.util.concurrent.ConcurrentHashMap<>();
        AtomicReference<DtlsEndpoint> s = new AtomicReference<>(), c = new AtomicReference<>();
        QueueDatagramTransport.Sender toServer = (b, o, l) -> deliver(s.get(), junk, b, o, l, seen);
        QueueDatagramTransport.Sender toClient = (b, o, l) -> deliver(c.get(), junk, b, o, l, seen);
        s.set(new DtlsEndpoint(true, SERVER_CERT, CLIENT_CERT.fingerprint(), List.of(SrtpProfile.AEAD_AES_128_GCM),
                new QueueDatagramTransport(toClient)));
        c.set(new DtlsEndpoint(false, CLIENT_CERT, SERVER_CERT.fingerprint(), List.of(SrtpProfile.AEAD_AES_128_GCM),
                new QueueDatagramTransport(toServer)));
        byte[] early = junk[3];
        assertThat(s.get().offer(early, 0, early.length)).as("a hello-shaped record reaches the waiting server")
                .isEqualTo(DtlsEndpoint.Offer.QUEUED);
        CompletableFuture<DtlsSrtpKeys> server = CompletableFuture.supplyAsync(() -> run(s.get()), POOL);
        CompletableFuture<DtlsSrtpKeys> client = CompletableFuture.supplyAsync(() -> run(c.get()), POOL);
        DtlsSrtpKeys srv = server.get(20, TimeUnit.SECONDS), cli = client.get(20, TimeUnit.SECONDS);
        assertThat(srv.localKey()).isEqualTo(cli.remoteKey());
        byte[] pkt = new byte[64];
        pkt[0] = (byte) 0x80; pkt[1] = 111; pkt[11] = 5;
        int n = cli.outbound().protectRtp(pkt, 0, 40);
        assertThat(srv.inbound().unprotectRtp(pkt, 0, n)).isEqualTo(40);
        assertThat(seen.get(DtlsEndpoint.Offer.MALFORMED).get()).isGreaterThanOrEqualTo(3 * 4);
        assertThat(seen.get(DtlsEndpoint.Offer.UNEXPECTED).get()).isPositive();
        assertThat(s.get().rejectedHellos()).isGreaterThanOrEqualTo(1);
        s.get().close();
        c.get().close();
    }

    private static void deliver(DtlsEndpoint to, byte[][] junk, byte[] b, int o, int l,
                                java.util.Map<DtlsEndpoint.Offer, java.util.concurrent.atomic.AtomicInteger> seen) {
        for (byte[] j : junk) {
            seen.computeIfAbsent(to.offer(j, 0, j.length), k -> new java.util.concurrent.atomic.AtomicInteger()).incrementAndGet();
        }
        DtlsEndpoint.Offer real = to.offer(b, o, l);
        if (!to.transport().isClosed()) assertThat(real).as("a real datagram").isEqualTo(DtlsEndpoint.Offer.QUEUED);
    }

    @Test
    void fingerprintFormat() {
        assertThat(SERVER_CERT.fingerprint()).matches("([0-9A-F]{2}:){31}[0-9A-F]{2}");
        assertThat(DtlsCertificate.matches(SERVER_CERT.fingerprint().toLowerCase(), SERVER_CERT.der())).isTrue();
        assertThat(DtlsCertificate.matches(CLIENT_CERT.fingerprint(), SERVER_CERT.der())).isFalse();
    }

    private static DtlsSrtpKeys run(DtlsEndpoint e) {
        try {
            return e.handshake();
        } catch (java.io.IOException ex) {
            throw new java.io.UncheckedIOException(ex);
        }
    }
}
