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
