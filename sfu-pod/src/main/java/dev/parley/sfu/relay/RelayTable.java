package dev.parley.sfu.relay;

import dev.parley.media.rtp.RtpPacket;
import dev.parley.sfu.net.PacketPath;
import dev.parley.sfu.routing.Router;
import dev.parley.sfu.transport.UnboundPackets;
import io.netty.util.collection.IntObjectHashMap;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One media worker's relays: claims SRTP from unbound 5-tuples by SSRC (a relay's wire SSRC → its receiving side;
 * SRTCP whose sender is a relay's {@code rtcp_ssrc} → its origin side) and fences relays every 100 ms (a newer
 * controller epoch of the meeting, or the meeting gone, closes them). Media thread only.
 */
final class RelayTable implements UnboundPackets {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RelayTable.class);
    private record Stream(RelayIn relay, RelayIn.Expected track, int layer) {}

    final Router router;
    final Map<String, Relay> byId = new LinkedHashMap<>();
    private final IntObjectHashMap<Stream> inBySsrc = new IntObjectHashMap<>();
    private final IntObjectHashMap<RelayOut> outByRtcpSsrc = new IntObjectHashMap<>();

    private long ticks;

    RelayTable(Router router) { this.router = router; }

    @Override
    public boolean onSrtp(byte[] b, int off, int len, PacketPath path, long now) {
        if (len < 12) return false;
        if (RtpPacket.isRtcp(b, off, len)) {
            RelayOut r = outByRtcpSsrc.get((int) RtpPacket.readUint32(b, off + 4));
            if (r == null) return false;
            r.onRtcp(b, off, len, now);
            return true;
        }
        Stream s = inBySsrc.get(RtpPacket.ssrc(b, off));
        if (s == null) return false;
        s.relay().onRtp(s.track(), s.layer(), b, off, len, path, now);
        return true;
    }

    boolean ssrcFree(int ssrc) { return ssrc != 0 && !inBySsrc.containsKey(ssrc) && !outByRtcpSsrc.containsKey(ssrc); }

    void addIn(RelayIn r) {
        remove(r.id, "replaced");
        byId.put(r.id, r);
        for (RelayIn.Expected t : r.tracks) {
            for (int i = 0; i < t.wireSsrc.length; i++) if (t.wireSsrc[i] != 0) inBySsrc.put(t.wireSsrc[i], new Stream(r, t, i));
        }
    }

    void addOut(RelayOut r) {
        remove(r.id, "replaced");
        byId.put(r.id, r);
        outByRtcpSsrc.put(r.rtcpSsrc, r);
    }

    /** Closes and forgets a relay; false if there was none. */
    boolean remove(String id, String why) {
        Relay r = byId.remove(id);
        if (r == null) return false;
        r.closedBecause = why;
        r.close();
        if (r instanceof RelayIn in) {
            for (RelayIn.Expected t : in.tracks) for (int s : t.wireSsrc) if (s != 0) inBySsrc.remove(s);
        } else if (r instanceof RelayOut out) {
            outByRtcpSsrc.remove(out.rtcpSsrc);
        }
        return true;
    }

    /** Every 100 ms: a relay granted under an older epoch than the meeting's now, or of a meeting gone, is closed. */
    void fence() {
        if (++ticks % 10 == 0) for (Relay r : byId.values()) if (r instanceof RelayIn in) in.sendReports();   // once a second
        for (Relay r : new ArrayList<>(byId.values())) {
            if (!router.control().carries(r.meetingId)) remove(r.id, "meeting_ended");
            else if (router.control().highestEpoch(r.meetingId) > r.epoch) {
                router.metrics().drop("relay_stale_epoch");
                remove(r.id, "stale_epoch");
                LOG.info("relay {} of meeting {} closed: epoch {} is stale", r.id, r.meetingId, r.epoch);
            }
        }
    }

    List<Map<String, Object>> state() {
        List<Map<String, Object>> l = new ArrayList<>();
        for (Relay r : byId.values()) l.add(r.state());
        return l;
    }
}
