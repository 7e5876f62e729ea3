package dev.parley.sfu.routing;

import dev.parley.media.rtp.HeaderExtensions;
import dev.parley.media.rtp.RtpPacket;
import dev.parley.media.rtp.Rtx;
import dev.parley.sfu.grant.GrantState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Publisher RTP in (mediasoup's Producer side): SSRCs learned from mid/rid/repaired-rid (or the offer's a=ssrc),
 * the payload type and the publish grant checked, transport-wide seq recorded for the publisher's feedback, RFC 3550
 * receive statistics (gaps NACKed upstream), RTX repairs restored to the original; then handed to the router's
 * fan-out. Media thread only; no allocation per packet.
 */
final class Ingest {
    private static final Logger LOG = LoggerFactory.getLogger(Ingest.class);
    private static final int MAX_STREAMS_PER_PUBLISHER = 32;

    private final Router router;
    /** An RTX packet from a publisher restored to its original form. */
    private final byte[] repaired = new byte[2048];
    private volatile int ingressLossPermille;

    Ingest(Router router) { this.router = router; }

    /** Test-only: share of publishers' video packets dropped on arrival (before the SFU sees them), in ‰. */
    void setIngressLossPermille(int permille) { ingressLossPermille = Math.max(0, Math.min(1000, permille)); }

    /** A decrypted RTP packet from publisher {@code p}. */
    void onRtp(Participant p, byte[] b, int off, int len, long now) {
        int ssrc = RtpPacket.ssrc(b, off);
        Layer layer = p.layersBySsrc.get(ssrc);
        int ingressLoss = ingressLossPermille;
        if (ingressLoss > 0 && layer != null && layer.track.video && ThreadLocalRandom.current().nextInt(1000) < ingressLoss) {
            router.metrics.drop("test_loss_ingress");     // as if lost upstream: the gap triggers a NACK to the publisher
            return;
        }
        // every packet that arrived counts for the publisher's congestion control (media, RTX, padding probes)
        if (p.publishTwccExtId > 0 && p.twccIn != null) {
            int tseq = HeaderExtensions.transportSequence(b, off, len, p.publishTwccExtId);
            if (tseq >= 0) p.twccIn.onPacket(tseq, now / 1000);
        }
        if (layer == null) {
            Layer repaired = p.rtxLayersBySsrc.get(ssrc);
            if (repaired == null) repaired = learnRtx(p, b, off, len, ssrc);
            if (repaired != null) { onRtx(p, repaired, b, off, len, now); return; }
            if ((layer = learn(p, b, off, len, ssrc)) == null) { router.metrics.drop("unknown_ssrc"); return; }
        }
        PublishedTrack tr = layer.track;
        if (RtpPacket.payloadType(b, off) != tr.payloadType) { router.metrics.drop("payload_type"); return; }
        GrantState g = p.grant();
        if (!Router.mayPublish(g, tr, now)) { router.metrics.drop("grant_publish"); return; }
        int hl = RtpPacket.headerLength(b, off, len);
        int pl = RtpPacket.payloadLength(b, off, len);
        if (hl < 0 || pl < 0) { router.metrics.drop("rtp_malformed"); return; }
        int seq = RtpPacket.sequence(b, off);
        if (tr.rtxPayloadType != 0) layer.markSeen(seq);
        receiveStats(p, layer, seq, RtpPacket.timestamp(b, off), now);
        layer.bytesReceived += len;
        router.route(p, layer, b, off, len, hl, pl, now, false);
    }

    /**
     * An RTX packet from a publisher (RFC 4588): restored to the original packet and routed like a late original,
     * unless that packet already arrived (Chromium also sends old media on RTX as bandwidth probes).
     */
    private void onRtx(Participant p, Layer layer, byte[] b, int off, int len, long now) {
        PublishedTrack tr = layer.track;
        if (RtpPacket.payloadType(b, off) != tr.rtxPayloadType) { router.metrics.drop("payload_type"); return; }
        GrantState g = p.grant();
        if (!Router.mayPublish(g, tr, now)) { router.metrics.drop("grant_publish"); return; }
        int osn = Rtx.originalSequence(b, off, len);
        if (osn < 0) { router.metrics.drop("rtx_padding"); return; }
        if (layer.ssrc == 0 || !layer.seqInit || RtpPacket.seqDelta(osn, layer.highestSeq) > 0
                || RtpPacket.seqDelta(osn, layer.highestSeq) < -Layer.SEEN || !layer.markSeen(osn)) {
            router.metrics.drop("rtx_duplicate");
            return;
        }
        int n = Rtx.unwrap(b, off, len, repaired, tr.payloadType, layer.ssrc);
        if (n < 0) { router.metrics.drop("rtp_malformed"); return; }
        int hl = RtpPacket.headerLength(repaired, 0, n);
        int pl = RtpPacket.payloadLength(repaired, 0, n);
        if (hl < 0 || pl < 0) { router.metrics.drop("rtp_malformed"); return; }
        router.metrics.rtxRepairs.increment();
        layer.received++;                                  // the original arrived after all (RFC 3550 counts it)
        router.route(p, layer, repaired, 0, n, hl, pl, now, true);
    }

    /** First packet on an unknown SSRC with the track's RTX payload type: which layer does it repair? */
    private Layer learnRtx(Participant p, byte[] b, int off, int len, int ssrc) {
        if (p.rtxLayersBySsrc.size() >= MAX_STREAMS_PER_PUBLISHER) return null;
        Layer layer = layerOf(p, b, off, len, ssrc, p.repairedRidExtId);
        if (layer == null || layer.track.rtxPayloadType == 0 || RtpPacket.payloadType(b, off) != layer.track.rtxPayloadType) return null;
        if (layer.rtxSsrc != 0) p.rtxLayersBySsrc.remove(layer.rtxSsrc);
        layer.rtxSsrc = ssrc;
        p.rtxLayersBySsrc.put(ssrc, layer);
        return layer;
    }

    private Layer learn(Participant p, byte[] b, int off, int len, int ssrc) {
        if (p.layersBySsrc.size() >= MAX_STREAMS_PER_PUBLISHER) return null;
        if (p.repairedRidExtId > 0 && HeaderExtensions.find(b, off, len, p.repairedRidExtId) != HeaderExtensions.NOT_FOUND) return null;
        Layer layer = layerOf(p, b, off, len, ssrc, p.ridExtId);
        if (layer == null || RtpPacket.payloadType(b, off) != layer.track.payloadType) return null;
        if (layer.ssrc != 0) {                                     // publisher restarted this stream
            p.layersBySsrc.remove(layer.ssrc);
            // a new connection's encoder: new sequence, timestamp and picture-id spaces; slots re-base on it
            for (Slot s : layer.track.slots) s.upstreamRestarted(layer);
        }
        layer.ssrc = ssrc;
        layer.seqInit = false;
        p.layersBySsrc.put(ssrc, layer);
        LOG.debug("learned ssrc {} → {} rid {}", ssrc & 0xFFFFFFFFL, layer.track.trackId, layer.rid);
        return layer;
    }

    /**
     * The layer a packet on a new SSRC belongs to: its track by the {@code mid} extension (else an SSRC declared in
     * the offer), its simulcast layer by the rid in extension {@code ridExtId} (rid for media, repaired-rid for RTX).
     */
    private static Layer layerOf(Participant p, byte[] b, int off, int len, int ssrc, int ridExtId) {
        PublishedTrack tr = null;
        if (p.midExtId > 0) {
            String mid = HeaderExtensions.readString(b, off, len, p.midExtId);
            if (mid != null) tr = p.tracksByMid.get(mid);
        }
        if (tr == null) tr = p.tracksByDeclaredSsrc.get(ssrc & 0xFFFFFFFFL);
        if (tr == null) return null;
        if (tr.layers.length == 1) return tr.layers[0];
        String rid = ridExtId > 0 ? HeaderExtensions.readString(b, off, len, ridExtId) : null;
        return rid == null ? null : tr.layer(rid);
    }

    /** Receive statistics and upstream NACK for packets the SFU itself never got. */
    private void receiveStats(Participant p, Layer l, int seq, long ts, long now) {
        l.lastPacketNanos = now;
        int previousHighest = l.highestSeq;
        int d = l.onPacket(seq, ts, now);
        if (d > 1 && d <= 17 && l.track.video) {
            router.rtcp.nackUpstream(p, l, previousHighest + 1, d - 1);
        }
    }
}
