package dev.parley.sfu.relay;

import dev.parley.media.rtcp.Rtcp;
import dev.parley.media.rtp.RtpPacket;
import dev.parley.media.srtp.SrtpContext;
import dev.parley.sfu.metrics.SfuMetrics;
import dev.parley.sfu.net.PacketPath;
import dev.parley.sfu.routing.TrackHandle;
import dev.parley.sfu.routing.TrackTap;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The origin side of one relay: taps the listed tracks after the local fan-out and sends only the listed layers,
 * in {@link RelayWire} form, SRTP-protected with the relay's key, from this worker's media port to the receiving
 * SFU. Takes the receiver's SRTCP (PLI/FIR → this SFU's coalesced keyframe request for the layer). Media thread.
 */
final class RelayOut extends Relay {
    /** One relayed track: its handle and the wire SSRC of each layer (0 = that layer does not cross). */
    final class Tap implements TrackTap {
        final TrackHandle track;
        final int[] wireSsrc;
        final int wirePt;
        final long[] layerPackets;
        /** From the receiver's reports, per layer: fraction lost (0..255) in the last report, cumulative lost. */
        final int[] fractionLost, cumulativeLost;
        /** The receiver's last tile report (width << 32 | height), -1 before the first: until then every listed layer goes. */
        long tile = -1;
        /** The highest layer that tile needs (-1: no report yet), by the layers' sizes here. */
        int wanted = -1;
        /** The highest layer sent now ({@link #highestLayer}, kept so the packet path only compares). */
        int sendUpTo;

        Tap(TrackHandle track, int[] wireSsrc) {
            this.track = track;
            this.wireSsrc = wireSsrc;
            this.wirePt = RelayWire.payloadType(track.codec());
            this.layerPackets = new long[wireSsrc.length];
            this.fractionLost = new int[wireSsrc.length];
            this.cumulativeLost = new int[wireSsrc.length];
            this.sendUpTo = highestLayer();
        }

        @Override
        public int highestLayer() {
            int top = wanted >= 0 ? Math.min(wanted, wireSsrc.length - 1) : wireSsrc.length - 1;
            for (int i = top; i >= 0; i--) if (wireSsrc[i] != 0) return i;
            for (int i = 0; i < wireSsrc.length; i++) if (wireSsrc[i] != 0) return i;  // the lowest listed layer always goes
            return -1;
        }

        @Override
        public long wantedTile() { return tile; }

        /** A tile report: from now on only the layers up to the one it needs cross; a layer coming back starts on a keyframe. */
        void onTile(long reported, long now) {
            tile = reported;
            int w = track.layerForTile((int) (reported >>> 32), (int) reported, now);
            if (w > wanted && wanted >= 0) for (int i = wanted + 1; i <= w && i < wireSsrc.length; i++) if (wireSsrc[i] != 0) track.requestKeyframe(i, now);
            wanted = w;
            sendUpTo = highestLayer();
        }

        @Override
        public void onPacket(int layerIndex, byte[] b, int off, int len, int hl, boolean keyframe, long now) {
            if (layerIndex >= wireSsrc.length || wireSsrc[layerIndex] == 0) return;      // a layer nobody behind the relay needs
            if (layerIndex > sendUpTo) return;                                         // above what the receiver's tiles need
            if (!active) { metrics.drop("relay_closed"); return; }
            if (len + 32 > buf.length) { metrics.drop("relay_too_large"); return; }
            int n = RelayWire.write(b, off, len, hl, buf, wireSsrc[layerIndex], wirePt, track.audioLevelExtId());
            n = srtp.protectRtp(buf, 0, n);
            if (n < 0) { metrics.drop(n == SrtpContext.ERR_NONCE_REUSE ? "relay_nonce_reuse" : "relay_protect"); return; }
            if (!target.send(buf, 0, n)) { metrics.drop("relay_send_queue"); return; }
            layerPackets[layerIndex]++;
            packets++;
            counters.packets().increment();
            counters.bytes().add(n);
            metrics.egressBytes.add(n);
        }
    }

    final PacketPath target;
    final int rtcpSsrc;
    final List<Tap> taps = new ArrayList<>();
    private final SrtpContext srtp;
    private final byte[] buf = new byte[2048];
    long plisReceived, receiverReports;

    RelayOut(String id, String meetingId, long epoch, String peer, PacketPath target, int rtcpSsrc, RelayKey key,
             SfuMetrics metrics, RelayCounters.Pair counters) {
        super(id, meetingId, epoch, peer, metrics, counters);
        this.target = target;
        this.rtcpSsrc = rtcpSsrc;
        this.srtp = key.context();
    }

    void add(TrackHandle t, int[] wireSsrc) {
        Tap tap = new Tap(t, wireSsrc);
        taps.add(tap);
        t.addTap(tap);
    }

    /** SRTCP from the receiving SFU (its sender SSRC is this relay's {@code rtcp_ssrc}). */
    void onRtcp(byte[] b, int off, int len, long now) {
        int n = srtp.unprotectRtcp(b, off, len);
        if (n < 0) { authFailed(n); return; }
        if (!active || Rtcp.validate(b, off, n) < 0) { metrics.drop(active ? "relay_rtcp_malformed" : "relay_closed"); return; }
        int end = off + n;
        for (int o = off; o >= 0; o = Rtcp.next(b, o, end)) {
            int type = Rtcp.type(b, o), fmt = Rtcp.count(b, o), blen = Rtcp.blockLength(b, o);
            if (type == Rtcp.RR) { onReceiverReport(b, o, fmt, blen); continue; }
            if (type == Rtcp.APP && RelayWire.isTile(b, o, blen)) { onTile(b, o, now); continue; }
            if (type != Rtcp.PSFB || blen < 12 || (fmt != Rtcp.FMT_PLI && fmt != Rtcp.FMT_FIR)) continue;
            int media = fmt == Rtcp.FMT_PLI ? Rtcp.mediaSsrc(b, o) : (blen >= 20 ? (int) RtpPacket.readUint32(b, o + 12) : 0);
            for (Tap t : taps) {
                for (int i = 0; i < t.wireSsrc.length; i++) {
                    if (t.wireSsrc[i] == media && media != 0) { plisReceived++; t.track.requestKeyframe(i, now); }
                }
            }
        }
    }

    private void onTile(byte[] b, int o, long now) {
        int ssrc = RelayWire.tileTrackSsrc(b, o);
        for (Tap t : taps) if (ssrc != 0 && t.wireSsrc.length > 1 && t.wireSsrc[0] == ssrc) t.onTile(RelayWire.tile(b, o), now);
    }

    /** RR report blocks (RFC 3550 §6.4.2): loss on the relay hop per layer, kept for {@code /state}. */
    private void onReceiverReport(byte[] b, int o, int blocks, int blen) {
        receiverReports++;
        for (int k = 0; k < blocks && 8 + 24 * (k + 1) <= blen; k++) {
            int p = o + 8 + 24 * k;
            int source = (int) RtpPacket.readUint32(b, p);
            int cumulative = ((b[p + 5] & 0xFF) << 16 | (b[p + 6] & 0xFF) << 8 | (b[p + 7] & 0xFF)) << 8 >> 8;   // signed 24 bit
            for (Tap t : taps) {
                for (int i = 0; i < t.wireSsrc.length; i++) {
                    if (t.wireSsrc[i] == source && source != 0) { t.fractionLost[i] = b[p + 4] & 0xFF; t.cumulativeLost[i] = cumulative; }
                }
            }
        }
    }

    @Override
    int relayedLayers() {
        int n = 0;
        for (Tap t : taps) for (int s : t.wireSsrc) if (s != 0) n++;
        return n;
    }

    @Override
    void close() {
        super.close();
        for (Tap t : taps) t.track.removeTap(t);
    }

    @Override
    Map<String, Object> state() {
        Map<String, Object> s = base("out");
        s.put("target", String.valueOf(target.remote()));
        s.put("plis_received", plisReceived);
        s.put("receiver_reports", receiverReports);
        List<Object> tracks = new ArrayList<>();
        for (Tap t : taps) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("track_id", t.track.trackId());
            m.put("relayed_track", t.track.relayed());
            List<Integer> layers = new ArrayList<>();
            List<Long> pk = new ArrayList<>();
            List<Object> loss = new ArrayList<>();
            for (int i = 0; i < t.wireSsrc.length; i++) {
                if (t.wireSsrc[i] == 0) continue;
                layers.add(i);
                pk.add(t.layerPackets[i]);
                loss.add(Map.of("fraction_lost", t.fractionLost[i] / 256.0, "cumulative_lost", t.cumulativeLost[i]));
            }
            m.put("layers", layers);
            m.put("layer_packets", pk);
            m.put("receiver_reports", loss);         // per layer, from the receiving SFU's RR (loss on this hop)
            if (t.tile >= 0) {
                m.put("receiver_tile", RelayIn.tileText(t.tile));
                m.put("sending_up_to_layer", t.highestLayer());
            }
            tracks.add(m);
        }
        s.put("tracks", tracks);
        return s;
    }
}
