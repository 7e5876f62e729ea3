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

/**
 * Time to join: the first valid connectivity check starts DTLS and tells the listener at once (the router asks
 * publishers for keyframes there, while the handshake runs), exactly once per transport; checks before it (none
 * valid) or after it (consent refreshes, path switches) do not.
 */
class HandshakeStartTest {
    private static final class Recorder implements TransportListener {
        final List<String> calls = new ArrayList<>();
        @Override public void onHandshakeStarted(WebRtcTransport t) { calls.add("handshake_started:" + t.state()); }
        @Override public void onConnected(WebRtcTransport t) { calls.add("connected"); }
        @Override public void onFailed(WebRtcTransport t, String reason) { calls.add("failed"); }
        @Override public void onRtp(WebRtcTransport t, byte[] b, int off, int len, long now) { }
        @Override public void onRtcp(WebRtcTransport t, byte[] b, int off, int len, long now) { }
    }

    private static PacketPath path(int port) {
        return new PacketPath() {
            @Override public boolean send(byte[] b, int off, int len) { return true; }
            @Override public boolean writable() { return true; }
            @Override public boolean isTcp() { return false; }
            @Override public SocketAddress remote() { return new InetSocketAddress("127.0.0.1", port); }
            @Override public void close() { }
        };
    }

    @Test
    void theFirstValidCheckReportsTheHandshakeStartOnce() throws Exception {
        Recorder r = new Recorder();
        io.netty.channel.DefaultEventLoop loop = new io.netty.channel.DefaultEventLoop();
        WebRtcTransport t = new WebRtcTransport("t", loop, null, DtlsCertificate.generate(),
                List.of(SrtpProfile.AES128_CM_HMAC_SHA1_80), IceCredentials.random(), "remote", "00", new SfuMetrics(), r);
        try {
            assertThat(r.calls).isEmpty();
            long now = System.nanoTime();
            t.onValidCheck(path(9), false, now);
            assertThat(r.calls).containsExactly("handshake_started:CONNECTING");   // DTLS already under way when told
            t.onValidCheck(path(9), true, now + 1_000_000);
            t.onValidCheck(path(10), true, now + 2_000_000);                      // another path nominated
            assertThat(r.calls).containsExactly("handshake_started:CONNECTING");
        } finally {
            t.close();
            loop.shutdownGracefully().sync();
        }
    }

    @Test
    void aClosedTransportNeverStartsOne() throws Exception {
        Recorder r = new Recorder();
        io.netty.channel.DefaultEventLoop loop = new io.netty.channel.DefaultEventLoop();
        WebRtcTransport t = new WebRtcTransport("t", loop, null, DtlsCertificate.generate(),
                List.of(SrtpProfile.AES128_CM_HMAC_SHA1_80), IceCredentials.random(), "remote", "00", new SfuMetrics(), r);
        try {
            t.close();
            t.onValidCheck(path(9), true, System.nanoTime());
            assertThat(r.calls).isEmpty();
        } finally {
            loop.shutdownGracefully().sync();
        }
    }
}
