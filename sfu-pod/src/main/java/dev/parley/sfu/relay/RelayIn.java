package dev.parley.sfu.relay;

import dev.parley.media.rtcp.Rtcp;
import dev.parley.media.rtp.RtpPacket;
import dev.parley.media.srtp.SrtpContext;
import dev.parley.sfu.metrics.SfuMetrics;
import dev.parley.sfu.net.PacketPath;
import dev.parley.sfu.routing.ControlException;
import dev.parley.sfu.routing.MeetingControl;
import dev.parley.sfu.routing.TrackHandle;
import dev.parley.sfu.routing.Upstream;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The receiving side of one relay: authenticates each packet with the relay's key, publishes each relayed track here
 * (on its first packet, when its codec is known from the wire payload type) as its publisher's, and feeds it to the
 * local fan-out as if a publisher sent it. Terminates RTCP: local subscribers' NACKs are answered from their slot
 * caches, their PLIs (coalesced per layer by the router) go to the origin as one SRTCP PLI. Media thread.
 */
final class RelayIn extends Relay {
    /** One track expected on the relay; once published here, the relay is its {@link Upstream}. */
    final class Expected implements Upstream {
        final String trackId;
        final boolean video;
        final int simulcastLayers;
        final int[] wireSsrc;              // per layer, 0 = not relayed
        TrackHandle handle;
        final long[] layerPackets;
        /** The tile last reported to the origin (width << 32 | height; -1 = none yet). */
        long tileSent = -1;

        Expected(String trackId, boolean video, int simulcastLayers, int[] wireSsrc) {
            this.trackId = trackId;
            this.video = video;
            this.simulcastLayers = simulcastLayers;
            this.wireSsrc = wireSsrc;
            this.layerPackets = new long[wireSsrc.length];
        }

        @Override
        public boolean forwarding(long now) { return active; }

        @Override
        public void requestKeyframe(int layerIndex, long now) {
            if (layerIndex < wireSsrc.length) sendPli(wireSsrc[layerIndex]);
        }
    }

    final List<Expected> tracks = new ArrayList<>();
    final int rtcpSsrc;
    private final SrtpContext srtpIn, srtpOut;
    private final MeetingControl control;
    private final Runnable flush;
    private final byte[] ctl = new byte[128];
    private final byte[] reports = new byte[1400];
    long reportsSent;
    /** Where the origin sends from (learned from the last authenticated packet): PLIs go there. */
    PacketPath origin;
    long plisSent;

    RelayIn(String id, String meetingId, long epoch, String peer, int rtcpSsrc, RelayKey key, MeetingControl control,
            Runnable flush, SfuMetrics metrics, RelayCounters.Pair counters) {
        super(id, meetingId, epoch, peer, metrics, counters);
        this.rtcpSsrc = rtcpSsrc;
        this.srtpIn = key.context();
        this.srtpOut = key.context();
        this.control = control;
        this.flush = flush;
    }

    /** An SRTP packet whose SSRC is one of this relay's wire SSRCs ({@code track}, {@code layer}). */
    void onRtp(Expected track, int layer, byte[] b, int off, int len, PacketPath path, long now) {
        int n = srtpIn.unprotectRtp(b, off, len);
        if (n < 0) { authFailed(n); return; }
        if (!active) { metrics.drop("relay_closed"); return; }
        origin = path;
        if (track.handle == null || !track.handle.live()) {
            String codec = RelayWire.codec(RtpPacket.payloadType(b, off));
            if (codec == null || RelayWire.video(codec) != track.video) { metrics.drop("relay_payload_type"); return; }
            try {
                track.handle = control.publishRelayed(meetingId, track.trackId, track.video, codec, RelayWire.payloadType(codec),
                        RelayWire.clockRate(codec), track.simulcastLayers, track.video ? 0 : RelayWire.AUDIO_LEVEL_ID, track);
            } catch (ControlException e) {
                // e.g. the publisher has since joined this SFU itself, or the meeting ended here: never two sources
                metrics.drop("relay_track_refused");
                return;
            }
            for (int i = 0; i < track.wireSsrc.length; i++) track.handle.setLayerSsrc(i, track.wireSsrc[i]);
        }
        packets++;
        track.layerPackets[layer]++;
        counters.packets().increment();
        counters.bytes().add(len);
        track.handle.inject(layer, b, off, n, now);
    }

    /** A PLI toward the origin for the wire SSRC of one relayed layer. */
    void sendPli(int wireSsrc) {
        PacketPath o = origin;
        if (!active || o == null || wireSsrc == 0) return;
        int n = Rtcp.writePli(ctl, 0, rtcpSsrc, wireSsrc);
        n = srtpOut.protectRtcp(ctl, 0, n);
        if (n < 0) { metrics.drop("relay_protect"); return; }
        if (o.send(ctl, 0, n)) { plisSent++; flush.run(); }
    }

    /**
     * Once a second: one receiver report block per relayed layer that carried packets (loss, highest sequence, jitter
     * on the relay hop), to the origin, which shows them per hop in its {@code /state}; and per relayed simulcast
     * track the largest tile shown here ({@link RelayWire#writeTile}), so the origin sends only the layers it needs.
     */
    void sendReports() {
        PacketPath o = origin;
        if (!active || o == null) return;
        int n = 0;
        for (Expected t : tracks) {
            if (t.handle == null || !t.handle.live()) continue;
            for (int i = 0; i < t.wireSsrc.length; i++) {
                if (t.wireSsrc[i] == 0 || !t.handle.reportable(i) || n + 32 > reports.length - 32) continue;
                n += Rtcp.writeReceiverReport(reports, n, rtcpSsrc, t.wireSsrc[i], t.handle.fractionLostSinceLastReport(i),
                        t.handle.lost(i), t.handle.extendedHighest(i), t.handle.jitter(i), 0, 0);
            }
        }
        if (n == 0) return;
        for (Expected t : tracks) {
            if (t.handle == null || !t.handle.live() || t.wireSsrc.length < 2 || t.wireSsrc[0] == 0) continue;
            if (n + RelayWire.TILE_LENGTH > reports.length - 32) break;
            t.tileSent = t.handle.largestTile();
            n += RelayWire.writeTile(reports, n, rtcpSsrc, t.wireSsrc[0], t.tileSent);
        }
        n = srtpOut.protectRtcp(reports, 0, n);
        if (n < 0) { metrics.drop("relay_protect"); return; }
        if (o.send(reports, 0, n)) { reportsSent++; flush.run(); }
    }

    @Override
    int relayedLayers() {
        int n = 0;
        for (Expected t : tracks) for (int s : t.wireSsrc) if (s != 0) n++;
        return n;
    }

    @Override
    void close() {
        super.close();
        for (Expected t : tracks) if (t.handle != null) control.unpublishRelayed(t.handle);
    }

    @Override
    Map<String, Object> state() {
        Map<String, Object> s = base("in");
        s.put("origin", origin == null ? null : String.valueOf(origin.remote()));
        s.put("plis_sent", plisSent);
        s.put("receiver_reports_sent", reportsSent);
        List<Object> list = new ArrayList<>();
        for (Expected t : tracks) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("track_id", t.trackId);
            m.put("origin_sfu", peer);
            m.put("published", t.handle != null && t.handle.live());
            List<Integer> layers = new ArrayList<>();
            List<Long> pk = new ArrayList<>(), lost = new ArrayList<>();
            for (int i = 0; i < t.wireSsrc.length; i++) {
                if (t.wireSsrc[i] == 0) continue;
                layers.add(i);
                pk.add(t.layerPackets[i]);
                lost.add(t.handle == null ? 0L : (long) t.handle.lost(i));
            }
            m.put("layers", layers);
            m.put("layer_packets", pk);
            m.put("layer_lost", lost);
            if (t.tileSent >= 0) m.put("tile_reported", tileText(t.tileSent));
            list.add(m);
        }
        s.put("tracks", list);
        return s;
    }

    /** "WxH" of a packed tile, "any" for a tile larger than every layer. */
    static String tileText(long tile) {
        int w = (int) (tile >>> 32), h = (int) tile;
        return w == Integer.MAX_VALUE ? "any" : w + "x" + h;
    }
}
