package dev.parley.sfu.transport;

import dev.parley.media.ice.IceCredentials;
import dev.parley.media.ice.IceChecks;
import dev.parley.media.stun.StunMessage;
import dev.parley.sfu.metrics.SfuMetrics;
import dev.parley.sfu.net.PacketHandler;
import dev.parley.sfu.net.PacketPath;

import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;

/**
 * The shared ports' front door (mediasoup's WebRtcServer): splits every datagram / TCP frame by its first byte
 * (RFC 7983), answers ICE-lite connectivity checks (STUN matched by the USERNAME's ufrag, authenticated with that
 * transport's password, the 5-tuple then bound to it) and hands DTLS and SRTP of a known 5-tuple to its
 * transport, which gives routing decrypted RTP/RTCP only. Media thread only; no allocation per media packet.
 */
public final class IceLiteDemux implements PacketHandler {
    private final SfuMetrics metrics;
    private final Map<String, WebRtcTransport> byUfrag = new HashMap<>();
    private final Map<PacketPath, WebRtcTransport> byPath = new HashMap<>();
    /** Binding success responses are written here (sent before the next request arrives). */
    private final byte[] response = new byte[1600];
    /** The STUN view, writer and array wrappers, reused for every check (media thread only). */
    private final IceChecks ice = new IceChecks();
    private volatile boolean loopbackPeersOnly;
    private volatile UnboundPackets unbound;

    public IceLiteDemux(SfuMetrics metrics) { this.metrics = metrics; }

    /** Only answer connectivity checks from loopback peers (everything in tests stays on 127.0.0.0/8). */
    public void setLoopbackPeersOnly(boolean v) { loopbackPeersOnly = v; }

    /** Where SRTP/SRTCP from a 5-tuple no check bound goes (the relays between SFUs); null: dropped. */
    public void setUnbound(UnboundPackets h) { unbound = h; }

    /** Makes {@code t} reachable by its local ufrag. */
    public void add(WebRtcTransport t) { byUfrag.put(t.localCredentials().ufrag(), t); }

    /** ICE restart: the transport answers to new local credentials from now on (DTLS and SRTP are kept). */
    public void restartIce(WebRtcTransport t, IceCredentials fresh, String remoteUfrag) {
        byUfrag.remove(t.localCredentials().ufrag());
        t.restartIce(fresh, remoteUfrag);
        byUfrag.put(fresh.ufrag(), t);
    }

    /** Forgets {@code t}: its ufrag and every 5-tuple bound to it. */
    public void remove(WebRtcTransport t) {
        byUfrag.remove(t.localCredentials().ufrag());
        byPath.values().removeIf(x -> x == t);
    }

    @Override
    public void onPacket(byte[] b, int off, int len, PacketPath path, long now) {
        metrics.ingressBytes.add(len);
        metrics.ingressPackets.increment();
        if (len <= 0) { metrics.drop("empty"); return; }   // a zero-length datagram or RFC 4571 frame
        int first = b[off] & 0xFF;
        if (first < 4) {
            handleStun(b, off, len, path, now);
        } else if (first >= 20 && first < 64) {
            WebRtcTransport t = byPath.get(path);
            if (t == null) { metrics.drop("unknown_path"); return; }
            t.onDtls(b, off, len);
        } else if (first >= 128 && first < 192) {
            WebRtcTransport t = byPath.get(path);
            if (t != null) { t.onSrtp(b, off, len, now); return; }
            UnboundPackets u = unbound;
            if (u == null || !u.onSrtp(b, off, len, path, now)) metrics.drop("unknown_path");
        } else {
            metrics.drop("unknown_protocol");
        }
    }

    private void handleStun(byte[] b, int off, int len, PacketPath path, long now) {
        StunMessage m = ice.parse(b, off, len);
        if (m == null) { metrics.drop("stun_malformed"); return; }
        if (m.messageType() != IceChecks.BINDING_REQUEST) return;   // indications, stray responses
        metrics.stunRequests.increment();
        if (loopbackPeersOnly && !((InetSocketAddress) path.remote()).getAddress().isLoopbackAddress()) {
            metrics.drop("peer_not_loopback");
            return;
        }
        String u = IceChecks.username(m);
        int colon = u == null ? -1 : u.indexOf(':');
        if (colon <= 0) { metrics.drop("stun_no_username"); return; }
        WebRtcTransport t = byUfrag.get(u.substring(0, colon));
        if (t == null) { metrics.drop("stun_unknown_ufrag"); return; }
        byte[] key = t.localCredentials().pwdBytes();
        if (!IceChecks.verify(m, key)) { metrics.drop("stun_auth"); return; }
        if (!u.substring(colon + 1).equals(t.remoteUfrag())) { metrics.drop("stun_stale_ufrag"); return; }
        boolean useCandidate = IceChecks.useCandidate(m);
        int n = ice.writeBindingSuccess(response, 0, m, (InetSocketAddress) path.remote(), key);
        path.send(response, 0, n);
        byPath.put(path, t);
        t.onValidCheck(path, useCandidate, now);
    }

    @Override
    public void onPathClosed(PacketPath path) {
        WebRtcTransport t = byPath.remove(path);
        if (t != null) t.onPathClosed(path);
    }
}
