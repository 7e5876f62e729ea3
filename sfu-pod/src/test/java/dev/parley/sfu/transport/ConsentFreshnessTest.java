package dev.parley.sfu.transport;

import dev.parley.media.dtls.DtlsCertificate;
import dev.parley.media.ice.IceCredentials;
import dev.parley.media.srtp.SrtpProfile;
import dev.parley.sfu.metrics.SfuMetrics;
import dev.parley.sfu.net.PacketPath;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** RFC 7675: a transport without a valid connectivity check for 30 s is closed; valid checks keep it alive. */
class ConsentFreshnessTest {
    private static final class Recorder implements TransportListener {
        final List<String> failures = new ArrayList<>();
        @Override public void onConnected(WebRtcTransport t) { }
        @Override public void onFailed(WebRtcTransport t, String reason) { failures.add(reason); }
        @Override public void onRtp(WebRtcTransport t, byte[] b, int off, int len, long now) { }
        @Override public void onRtcp(WebRtcTransport t, byte[] b, int off, int len, long now) { }
    }

    private static final PacketPath PATH = new PacketPath() {
        @Override public boolean send(byte[] b, int off, int len) { return true; }
        @Override public boolean writable() { return true; }
        @Override public boolean isTcp() { return false; }
        @Override public SocketAddress remote() { return new InetSocketAddress("127.0.0.1", 9); }
        @Override public void close() { }
    };

    private static WebRtcTransport transport(Recorder r) {
        return new WebRtcTransport("t", null, null, DtlsCertificate.generate(), List.of(SrtpProfile.AES128_CM_HMAC_SHA1_80),
                IceCredentials.random(), "remote", "00", new SfuMetrics(), r);
    }

    @Test
    void neverCheckedTransportExpiresAfterThirtySeconds() {
        Recorder r = new Recorder();
        WebRtcTransport t = transport(r);
        long now = System.nanoTime();
        assertThat(t.checkConsent(now + 29_000_000_000L)).isFalse();
        assertThat(t.checkConsent(now + 31_000_000_000L)).isTrue();
        assertThat(r.failures).containsExactly("consent expired");
        assertThat(t.state()).isEqualTo(WebRtcTransport.State.FAILED);
        assertThat(t.checkConsent(now + 60_000_000_000L)).isFalse();   // reported once
    }

    @Test
    void validChecksRefreshConsent() throws Exception {
        Recorder r = new Recorder();
        io.netty.channel.DefaultEventLoop loop = new io.netty.channel.DefaultEventLoop();
        WebRtcTransport t = new WebRtcTransport("t", loop, null, DtlsCertificate.generate(),
                List.of(SrtpProfile.AES128_CM_HMAC_SHA1_80), IceCredentials.random(), "remote", "00", new SfuMetrics(), r);
        try {
            long now = System.nanoTime();
            t.onValidCheck(PATH, true, now);
            assertThat(t.state()).isEqualTo(WebRtcTransport.State.CONNECTING);   // DTLS started on the first valid check
            assertThat(t.selectedPath()).isSameAs(PATH);
            t.onValidCheck(PATH, false, now + 25_000_000_000L);
            assertThat(t.checkConsent(now + 50_000_000_000L)).isFalse();       // 25 s since the last check
            assertThat(t.checkConsent(now + 56_000_000_000L)).isTrue();        // 31 s since the last check
            assertThat(r.failures).containsExactly("consent expired");
        } finally {
            t.close();
            loop.shutdownGracefully().sync();
        }
    }
}
