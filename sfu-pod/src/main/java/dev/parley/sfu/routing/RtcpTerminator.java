package dev.parley.sfu.routing;

import dev.parley.media.rtcp.Rtcp;
import dev.parley.media.rtp.RtpPacket;
import dev.parley.media.rtp.Rtx;
import dev.parley.sfu.allocation.KeyframeRequestCoalescer;
import dev.parley.sfu.grant.GrantState;
import dev.parley.sfu.transport.WebRtcTransport;
import io.netty.util.collection.IntObjectHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;

/**
 * Where RTCP ends (the SFU terminates it per leg, as mediasoup does): subscribers' NACKs are answered from the slot
 * caches (RTX when negotiated), their PLI/FIR become one coalesced PLI per publisher stream, their transport-cc and
 * REMB feed the estimator, their RRs give RTT; publishers get NACKs for gaps, RR + REMB, transport-cc feedback, and
 * subscribers SR + SDES. Media thread only; no allocation per packet.
 */
final class RtcpTerminator {
    private static final Logger LOG = LoggerFactory.getLogger(RtcpTerminator.class);
    private static final long PLI_INTERVAL_NANOS = 300_000_000L;

    private final Router router;
    /** RTCP being written (one packet at a time). */
    private final byte[] ctl = new byte[1600];
    /** A cached packet being retransmitted. */
    private final byte[] out = new byte[2048];
    private final int[] nackSeqs = new int[64];
    private long lastTwccLogNanos;
    /** One keyframe request per publisher stream per 300 ms, whoever asks (subscriber PLIs, layer switches). */
    private final KeyframeRequestCoalescer keyframes = new KeyframeRequestCoalescer(PLI_INTERVAL_NANOS / 1_000_000);
    /** Publisher streams with a deferred keyframe request, by SSRC (to send it when the coalescer says so). */
    private final IntObjectHashMap<Layer> deferredPli = new IntObjectHashMap<>();

    RtcpTerminator(Router router) { this.router = router; }

    /**
     * A keyframe arrived on this publisher stream: requests for it may go out again, and a deferred one is satisfied.
     * The deferred entry must go with it: the coalescer will not hand that stream out again, and an entry left here
     * holds the layer, and through it the publisher, its meeting and their packet caches, for the life of the process
     * (found in a soak: SFU heap after GC growing with churn, 12 Participant objects held by an SFU carrying 3).
     */
    void onKeyframe(int ssrc) {
        keyframes.onKeyframe(ssrc);
        deferredPli.remove(ssrc);
    }

    /** The publisher stream ended (unpublished): nothing of it stays here. */
    void forgetStream(int ssrc) {
        if (ssrc == 0) return;
        keyframes.remove(ssrc);
        deferredPli.remove(ssrc);
    }

    /** Publisher streams with a deferred keyframe request (tests). */
    int deferredRequests() { return deferredPli.size(); }

    /** Sends the keyframe requests the coalescer held back and whose interval is over. */
    void sendDeferredKeyframeRequests(long now) {
        keyframes.drainDue(now / 1_000_000, ssrc -> {
            Layer l = deferredPli.remove((int) ssrc);
            if (l != null && l.ssrc == (int) ssrc) sendPli(l, now);
        });
    }

    /** Generic NACK to the publisher for {@code count} sequence numbers from {@code first} on layer {@code l}. */
    void nackUpstream(Participant p, Layer l, int first, int count) {
        int n = 0;
        for (int s = first; n < count; s++) nackSeqs[n++] = s & 0xFFFF;
        int len = Rtcp.writeNack(ctl, 0, p.rtcpSsrc, l.ssrc, nackSeqs, n);
        if (p.publish.sendRtcp(ctl, 0, len)) router.metrics.nacksSent.increment();
    }

    /** A compound RTCP packet from {@code p} on transport {@code t}: feedback from a subscriber, SRs from a publisher. */
    void onRtcp(Participant p, WebRtcTransport t, byte[] b, int off, int len, long now) {
        if (p == null || Rtcp.validate(b, off, len) < 0) { router.metrics.drop("rtcp_malformed"); return; }
        boolean fromSubscriber = p.subscribe == t;
        int end = off + len;
        for (int o = off; o >= 0; o = Rtcp.next(b, o, end)) {
            int type = Rtcp.type(b, o), fmt = Rtcp.count(b, o), blen = Rtcp.blockLength(b, o);
            if (!fromSubscriber) {
                if (type == Rtcp.SR && blen >= 28) {
                    Layer l = p.layersBySsrc.get(Rtcp.senderSsrc(b, o));
                    if (l != null) { l.lastSrNtpMiddle = (Rtcp.srNtp(b, o) >>> 16) & 0xFFFFFFFFL; l.lastSrAtNanos = now; }
                }
                continue;
            }
            if (type == Rtcp.RR || type == Rtcp.SR) {
                p.rtt.onReportPacket(b, o, blen, now);                 // LSR/DLSR of our sender reports: RTT
                continue;
            }
            if (blen < 12) continue;
            if (type == Rtcp.RTPFB && fmt == Rtcp.FMT_TWCC) {
                if (p.bwe == null) continue;
                if (p.twccReader.read(b, o, blen, p.bwe, now / 1000) < 0) {
                    router.metrics.drop("twcc_malformed");
                    if (now - lastTwccLogNanos > 10_000_000_000L) {
                        lastTwccLogNanos = now;
                        LOG.info("malformed transport-cc feedback from a subscriber ({} bytes)", blen);
                    }
                } else {
                    router.metrics.twccFeedback.increment();
                }
            } else if (type == Rtcp.PSFB && fmt == Rtcp.FMT_AFB && Rtcp.isRemb(b, o)) {
                // REMB: the fallback for receivers without transport-cc (ignored once transport-cc arrived)
                if (p.bwe != null) p.bwe.onRemb(Rtcp.rembBitrate(b, o), now / 1000);
            } else if (type == Rtcp.RTPFB && fmt == Rtcp.FMT_NACK) {
                router.metrics.nacksReceived.increment();
                Slot s = slotBySsrc(p, Rtcp.mediaSsrc(b, o));
                if (s != null) retransmit(s, b, o, now);
            } else if (type == Rtcp.PSFB && (fmt == Rtcp.FMT_PLI || fmt == Rtcp.FMT_FIR)) {
                router.metrics.plisReceived.increment();
                int media = fmt == Rtcp.FMT_PLI ? Rtcp.mediaSsrc(b, o) : (blen >= 20 ? (int) RtpPacket.readUint32(b, o + 12) : 0);
                Slot s = slotBySsrc(p, media);
                if (s != null && s.track != null) {
                    Layer l = s.current != null ? s.current : s.target;
                    if (l != null) requestKeyframe(l, now, false);
                }
            }
        }
    }

    private static Slot slotBySsrc(Participant p, int ssrc) {
        for (Slot s : p.slots) if (s.ssrc == ssrc) return s;
        return null;
    }

    /** Answers a subscriber's NACK from the slot's cache, if both sides' grants still allow it. */
    private void retransmit(Slot s, byte[] b, int o, long now) {
        if (s.cache == null || s.track == null || s.paused) return;      // paused for bandwidth: no repairs either
        if (!s.subscriber.grant().maySubscribe(now)) { router.metrics.drop("grant_subscribe"); return; }
        GrantState pg = s.track.owner.grant();
        if (!Router.mayPublish(pg, s.track, now)) { router.metrics.drop("grant_publish"); return; }
        WebRtcTransport st = s.subscriber.subscribe;
        if (st == null || !st.connected()) return;
        int entries = Math.min(Rtcp.nackEntries(b, o), 32);
        for (int i = 0; i < entries; i++) {
            int pid = Rtcp.nackPid(b, o, i), blp = Rtcp.nackBlp(b, o, i);
            for (int k = -1; k < 16; k++) {
                if (k >= 0 && (blp & (1 << k)) == 0) continue;
                int seq = (pid + k + 1) & 0xFFFF;
                int n = s.cache.get(seq, out);
                if (n <= 0) continue;
                Participant sub = s.subscriber;
                if (s.rtxSsrc != 0) {
                    // RFC 4588: own SSRC and sequence space, original sequence number first in the payload
                    n = Rtx.wrap(out, 0, n, out, s.rtxPayloadType, s.rtxSsrc, s.rtxSeq);
                    if (n < 0) continue;
                    s.rtxSeq = (s.rtxSeq + 1) & 0xFFFF;
                }
                // a retransmission is a new packet on the transport: give it the next transport-wide seq
                boolean twcc = sub.twccExtId > 0 && n > 19 && (out[0] & 0x10) != 0
                        && out[16] == (byte) ((sub.twccExtId << 4) | 1);
                if (twcc) RtpPacket.writeUint16(out, 17, sub.twccSeq & 0xFFFF);
                if (router.sendToSubscriber(sub, st, out, n, twcc)) {
                    router.metrics.retransmissions.increment();
                    if (s.rtxSsrc != 0) router.metrics.rtxSent.increment();
                }
            }
        }
    }

    /** A keyframe request for {@code l}, coalesced per publisher stream unless {@code force}d (a deferred one goes out from the tick). */
    void requestKeyframe(Layer l, long now, boolean force) {
        if (l.ssrc == 0) return;
        if (!force && !keyframes.request(l.ssrc, now / 1_000_000)) { deferredPli.put(l.ssrc, l); return; }
        sendPli(l, now);
    }

    private void sendPli(Layer l, long now) {
        if (l.track.upstream != null) { l.lastPliNanos = now; l.track.upstream.requestKeyframe(l.index, now); return; }
        Participant pub = l.track.owner;
        if (pub.publish == null || !pub.publish.connected()) return;
        l.lastPliNanos = now;
        if (LOG.isDebugEnabled()) LOG.debug("PLI → {} layer {}", l.track.trackId, l.index);
        int n = Rtcp.writePli(ctl, 0, pub.rtcpSsrc, l.ssrc);
        if (pub.publish.sendRtcp(ctl, 0, n)) router.metrics.plisSent.increment();
    }

    private volatile boolean transportFeedbackEnabled = true;

    void setTransportFeedbackEnabled(boolean v) { transportFeedbackEnabled = v; }

    /** Every 50 ms: transport-cc feedback for everything each publisher sent since the last one. */
    void sendTransportFeedback() {
        try {
            for (Map.Entry<WebRtcTransport, Participant> e : router.owners.entrySet()) {
                Participant p = e.getValue();
                WebRtcTransport t = e.getKey();
                if (p.publish != t || p.twccIn == null || !t.connected() || !transportFeedbackEnabled) continue;
                int n, media = 0;
                for (PublishedTrack tr : p.tracksByMid.values()) if (tr.layers[0].ssrc != 0) { media = tr.layers[0].ssrc; break; }
                for (int i = 0; i < 8 && (n = p.twccIn.write(ctl, 0, p.rtcpSsrc, media)) > 0; i++) {
                    if (t.sendRtcp(ctl, 0, n)) router.metrics.twccFeedbackSent.increment();
                }
            }
            router.io.flush();
        } catch (RuntimeException ex) {
            LOG.warn("transport feedback failed", ex);
        }
    }

    /** RR + REMB to publishers, SR + SDES to subscribers, once a second. */
    void sendReports(Participant p, long now) {
        if (p.publish != null && p.publish.connected()) {
            int n = 0;
            int[] videoSsrcs = new int[8];
            int vn = 0;
            for (PublishedTrack t : p.tracksByMid.values()) {
                for (Layer l : t.layers) {
                    if (l.ssrc == 0 || !l.seqInit || n + 32 > 1000) continue;
                    long dlsr = l.lastSrAtNanos == 0 ? 0 : (now - l.lastSrAtNanos) * 65536 / 1_000_000_000L;
                    n += Rtcp.writeReceiverReport(ctl, n, p.rtcpSsrc, l.ssrc, l.fractionLostSinceLastReport(), l.cumulativeLost(),
                            l.extendedHighest(), l.jitter(), l.lastSrNtpMiddle, dlsr);
                    if (t.video && vn < videoSsrcs.length) videoSsrcs[vn++] = l.ssrc;
                }
            }
            if (vn > 0) n += Rtcp.writeRemb(ctl, n, p.rtcpSsrc, rembBitrateBps, videoSsrcs, vn);
            if (n > 0) p.publish.sendRtcp(ctl, 0, n);
        }
        if (p.subscribe != null && p.subscribe.connected()) {
            for (Slot s : p.slots) {
                if (s.packetsSent == 0 || s.track == null) continue;
                long clock = s.track.clockRate;
                long rtpNow = (s.lastOutTs + (now - s.lastOutNanos) * clock / 1_000_000_000L) & 0xFFFFFFFFL;
                long ntp = ntpNow();
                int n = Rtcp.writeSenderReport(ctl, 0, s.ssrc, ntp, rtpNow, s.packetsSent, s.octetsSent);
                p.rtt.onSenderReportSent(s.ssrc, ntp, now);
                n += Rtcp.writeSdesCname(ctl, n, s.ssrc, CNAME);
                p.subscribe.sendRtcp(ctl, 0, n);
            }
        }
    }

    private static final byte[] CNAME = "parley-sfu".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private volatile long rembBitrateBps = 4_000_000;

    void setRembBitrate(long bps) { rembBitrateBps = bps; }

    private static long ntpNow() {
        long ms = System.currentTimeMillis();
        long secs = ms / 1000 + 2_208_988_800L;
        long frac = ((ms % 1000) << 32) / 1000;
        return (secs << 32) | frac;
    }
}
