package dev.parley.sfu.routing;

import dev.parley.media.codec.Vp8Descriptor;
import dev.parley.media.codec.Vp9Descriptor;
import dev.parley.media.rtp.HeaderExtensions;
import dev.parley.media.rtp.RtpPacket;
import dev.parley.sfu.transport.WebRtcTransport;

import java.util.concurrent.ThreadLocalRandom;

/**
 * One send slot (a recvonly m= section of a subscriber's connection) and the track currently mapped onto it.
 * Keeps the outgoing SSRC/sequence/timestamp/picture-id space continuous across layer switches and track
 * changes: every switch recomputes offsets so the receiver sees one unbroken stream.
 */
final class Slot {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Slot.class);
    final Participant subscriber;
    final String mid;
    final boolean video;
    final int ssrc;
    /** Payload type of what the slot sends now: the section's codec, or VP9's while a VP9 track is mapped. */
    int payloadType;
    /** The section's codec payload types (primary = VP8 or H.264, with RTX) and VP9's (0 = not negotiated). */
    final int primaryPayloadType;
    int primaryRtxPayloadType, vp9PayloadType, vp9RtxPayloadType;
    final int midExtId, audioLevelExtId;
    final byte[] midBytes;
    /** RTX stream of this slot (RFC 4588): its SSRC (0 = not negotiated), payload type and own sequence space. */
    int rtxSsrc, rtxPayloadType, rtxSeq = java.util.concurrent.ThreadLocalRandom.current().nextInt(0x10000);
    PublishedTrack track;
    PacketCache cache;
    /** VP8 temporal-layer dropping with dense outgoing numbers (video slots only). */
    final TemporalFilter temporal;
    /** VP9 SVC spatial/temporal layer filter (video slots only; used while a VP9 track is mapped). */
    final SvcFilter svc;

    // layer selection
    int maxWidth = 1280, maxHeight = 720;
    Layer current, target;
    boolean waitingKeyframe;
    /** The allocator paused this video for bandwidth: nothing is forwarded until it resumes (at a keyframe). */
    boolean paused;
    /** When the allocator first asked to pause it (System.nanoTime; 0 = it doesn't). */
    long pauseWantedSince;
    /** While paused: since when the allocation has had room to resume it (System.nanoTime; 0 = it hasn't). */
    long resumeWantedSince;
    /** Spatial layer switches since the slot was created (observability: oscillation shows here). */
    int layerSwitches;

    // rewriting state
    boolean started;
    int seqOffset, switchSeq, sinceSwitch;
    long tsOffset;
    int pidOffset, tl0Offset;
    int lastOutSeq, lastOutPid, lastOutTl0;
    long lastOutTs, lastOutNanos;
    long packetsSent, octetsSent;

    Slot(Participant subscriber, String mid, boolean video, int ssrc, int payloadType, int midExtId, int audioLevelExtId) {
        this.subscriber = subscriber;
        this.mid = mid;
        this.video = video;
        this.ssrc = ssrc;
        this.payloadType = payloadType;
        this.primaryPayloadType = payloadType;
        this.midExtId = midExtId;
        this.audioLevelExtId = audioLevelExtId;
        this.midBytes = mid.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        if (video) cache = new PacketCache();
        temporal = video ? new TemporalFilter() : null;
        svc = video ? new SvcFilter() : null;
    }

    /** The negotiated codecs of this section (from the subscribe answer); the payload types follow the mapped track. */
    void codecs(int rtxPayloadType, int vp9PayloadType, int vp9RtxPayloadType) {
        this.primaryRtxPayloadType = rtxPayloadType;
        this.vp9PayloadType = vp9PayloadType;
        this.vp9RtxPayloadType = vp9RtxPayloadType;
        choosePayloadTypes();
    }

    /** Whether this slot can carry {@code t}'s codec (a VP9 track needs VP9 negotiated on the section). */
    boolean carries(PublishedTrack t) { return t.video == video && (!t.vp9 || vp9PayloadType != 0); }

    private void choosePayloadTypes() {
        boolean vp9 = track != null && track.vp9 && vp9PayloadType != 0;
        payloadType = vp9 ? vp9PayloadType : primaryPayloadType;
        rtxPayloadType = vp9 ? vp9RtxPayloadType : primaryRtxPayloadType;
    }

    void attach(PublishedTrack t) {
        track = t;
        choosePayloadTypes();
        if (svc != null) { svc.targetSpatial = SvcFilter.ALL; svc.targetTemporal = SvcFilter.ALL; }
        current = null;
        target = null;
        waitingKeyframe = false;
        paused = false;
        pauseWantedSince = 0;
        resumeWantedSince = 0;
    }

    void detach() {
        track = null;
        current = null;
        target = null;
    }

    /**
     * The publisher restarted {@code l}'s stream (a new SSRC on the same track: a new connection after a reconnect or
     * a new transport generation), so its sequence numbers, timestamps and picture ids start afresh. A slot forwarding
     * {@code l} re-bases at the new stream's first keyframe (audio: its first packet) as at a switch; kept on the old
     * offsets, the new numbers would look like late packets (the temporal filter and the switch-point check drop
     * them all) or jump where the receiver's jitter buffer and SRTP replay window discard them.
     */
    void upstreamRestarted(Layer l) {
        if (current != l) return;
        if (video) waitingKeyframe = true;
        else current = null;
    }

    /**
     * Records a forwarded packet's outgoing picture id and TL0PICIDX (-1: the packet has none). Only a newer value
     * moves them: a late packet (reordered, or the publisher's repair of an older picture) forwarded just before a
     * switch must not make the next layer's keyframe reuse numbers the receiver already has — libwebrtc drops a
     * keyframe whose picture id is not ahead of what it decoded, and keeps its base-layer info per TL0PICIDX, so a
     * reused TL0PICIDX makes the new layer's base-layer pictures look like old ones (dropped: frames stop).
     */
    void noteVp8Out(int pid, int pidBits, int tl0) {
        if (pid >= 0) {
            int sh = 32 - (pidBits == 7 ? 7 : 15);
            if (!pidSeen || ((pid - lastOutPid) << sh) >> sh > 0) lastOutPid = pid;
            pidSeen = true;
        }
        if (tl0 >= 0) {
            if (!tl0Seen || (byte) (tl0 - lastOutTl0) > 0) lastOutTl0 = tl0;
            tl0Seen = true;
        }
    }

    private boolean pidSeen, tl0Seen;

    /** Starts forwarding {@code layer} from this packet on, continuing the outgoing number spaces. */
    void switchTo(Layer layer, byte[] b, int off, Vp8Descriptor vp8, long now) { switchTo(layer, b, off, vp8, null, now); }

    /** As above for a VP8 ({@code vp8}) or VP9 ({@code vp9}) packet, or neither. */
    void switchTo(Layer layer, byte[] b, int off, Vp8Descriptor vp8, Vp9Descriptor vp9, long now) {
        int inSeq = RtpPacket.sequence(b, off);
        long inTs = RtpPacket.timestamp(b, off);
        if (!started) {
            started = true;
            seqOffset = 0;
            tsOffset = 0;
            pidOffset = 0;
            tl0Offset = 0;
            lastOutSeq = (inSeq - 1) & 0xFFFF;
        } else {
            seqOffset = (lastOutSeq + 1 - inSeq) & 0xFFFF;
            long clock = layer.track.clockRate;
            long ticks = Math.max(1, (now - lastOutNanos) * clock / 1_000_000_000L);
            tsOffset = (lastOutTs + ticks - inTs) & 0xFFFFFFFFL;
            if (vp8 != null && vp8.pictureIdBits > 0) pidOffset = (lastOutPid + 1 - vp8.pictureId) & 0x7FFF;
            if (vp8 != null && vp8.tl0PicIdx >= 0) tl0Offset = (lastOutTl0 + 1 - vp8.tl0PicIdx) & 0xFF;
            if (vp9 != null && vp9.pictureIdBits > 0) pidOffset = (lastOutPid + 1 - vp9.pictureId) & 0x7FFF;
            if (vp9 != null && vp9.tl0PicIdx >= 0) tl0Offset = (lastOutTl0 + 1 - vp9.tl0PicIdx) & 0xFF;
        }
        if (LOG.isDebugEnabled()) {
            LOG.debug("{} {}: {} layer {} at in seq {} pid {} tl0 {} → out seq {} pid {} tl0 {} ts {}", subscriber.id, mid,
                    current == layer ? "restart" : "switch to", layer.index, inSeq, vp8 == null ? -1 : vp8.pictureId,
                    vp8 == null ? -1 : vp8.tl0PicIdx, (inSeq + seqOffset) & 0xFFFF, vp8 == null ? -1 : (vp8.pictureId + pidOffset) & 0x7FFF,
                    vp8 == null ? -1 : (vp8.tl0PicIdx + tl0Offset) & 0xFF, (inTs + tsOffset) & 0xFFFFFFFFL);
        }
        if (temporal != null) temporal.reset();
        if (svc != null) svc.reset();
        if (current != null && current != layer) layerSwitches++;
        current = layer;
        switchSeq = inSeq;
        sinceSwitch = 0;
        waitingKeyframe = false;
    }

    /**
     * Forwards one publisher packet to this slot (mediasoup's consumer): subscribe grant, layer switch at keyframes,
     * temporal/SVC filtering, then the slot's own header, extensions and numbers, into the cache and r.out. Builds
     * into {@code r}'s shared buffer; no allocation.
     */
    void forward(Router r, Layer layer, byte[] b, int off, int len, int hl, int pl, boolean keyframe,
                 Vp8Descriptor vp8, Vp9Descriptor vp9, long now, boolean repair) {
        Participant sub = subscriber;
        if (!sub.grant().maySubscribe(now)) { r.metrics.drop("grant_subscribe"); return; }
        WebRtcTransport st = sub.subscribe;
        if (st == null || !st.connected()) { r.metrics.drop("subscriber_not_connected"); return; }
        boolean frameStart = vp9 != null ? vp9.startOfPicture() : vp8 == null || (vp8.startOfPartition && vp8.partitionId == 0);
        if (repair && (layer != current || waitingKeyframe)) return;   // repairs fill holes, never switch
        if (video) {
            if (paused) return;                                     // the allocator paused it for bandwidth
            if (layer != current) {
                Layer want = target != null ? target : layer;
                if (layer != want || !keyframe || !frameStart) return;
                switchTo(layer, b, off, vp8, vp9, now);
            } else if (waitingKeyframe) {
                if (!keyframe || !frameStart) return;
                // resume (pause, send-queue drop) re-bases the numbers: what was skipped is no gap the receiver NACKs
                switchTo(layer, b, off, vp8, vp9, now);
            }
        } else if (layer != current) {
            switchTo(layer, b, off, null, now);
        }
        int inSeq = RtpPacket.sequence(b, off);
        if (sinceSwitch < 1000) {                                   // late packets from before the switch point
            if (RtpPacket.seqDelta(inSeq, switchSeq) < 0) return;
            sinceSwitch++;
        }
        TemporalFilter tf = temporal;
        int fate, seqShift;
        if (vp9 != null) {                                            // VP9 SVC: spatial and temporal layers
            fate = svc.admit(inSeq, vp9, keyframe);
            seqShift = svc.seqShift;
        } else {
            fate = tf == null ? TemporalFilter.FORWARD : tf.admit(inSeq, vp8, keyframe);
            seqShift = tf == null ? 0 : tf.seqShift;
        }
        if (fate != TemporalFilter.FORWARD) {                         // a layer above the slot's target
            if (fate == TemporalFilter.FILL) {
                int n = ProbePadding.writeFill(r.ctl, this, sub.twccExtId, sub.twccSeq, (inSeq + seqOffset - seqShift) & 0xFFFF,
                        (RtpPacket.timestamp(b, off) + tsOffset) & 0xFFFFFFFFL);
                r.sendToSubscriber(sub, st, r.ctl, n, sub.twccExtId > 0);
            }
            return;
        }
        int outSeq = (inSeq + seqOffset - seqShift) & 0xFFFF;
        long outTs = (RtpPacket.timestamp(b, off) + tsOffset) & 0xFFFFFFFFL;

        // fixed header with the slot's identity; the publisher's extensions are replaced by the slot's own
        byte[] o = r.out;
        o[0] = (byte) (0x80 | (b[off] & 0x20));
        // VP9: the last packet forwarded of a picture ends it for the receiver (upper spatial layers dropped)
        o[1] = (byte) ((b[off + 1] & 0x80) | (vp9 != null && svc.marker ? 0x80 : 0) | payloadType);
        RtpPacket.setSequence(o, 0, outSeq);
        RtpPacket.setTimestamp(o, 0, outTs);
        RtpPacket.setSsrc(o, 0, ssrc);
        int p = 12;
        int twccId = sub.twccExtId;
        if (midExtId > 0 || audioLevelExtId > 0 || twccId > 0) {
            int start = p;
            o[p] = (byte) 0xBE; o[p + 1] = (byte) 0xDE;
            p += 4;
            if (twccId > 0) {                       // always first (bytes 16..18): retransmit rewrites it there
                o[p++] = (byte) ((twccId << 4) | 1);
                RtpPacket.writeUint16(o, p, sub.twccSeq & 0xFFFF);
                p += 2;
            }
            if (midExtId > 0) {
                o[p++] = (byte) ((midExtId << 4) | (midBytes.length - 1));
                System.arraycopy(midBytes, 0, o, p, midBytes.length);
                p += midBytes.length;
            }
            if (audioLevelExtId > 0 && layer.track.audioLevelExtId > 0) {
                long f = HeaderExtensions.find(b, off, len, layer.track.audioLevelExtId);
                if (f != HeaderExtensions.NOT_FOUND) {
                    o[p++] = (byte) (audioLevelExtId << 4);
                    o[p++] = b[HeaderExtensions.offset(f)];
                }
            }
            while (((p - start) & 3) != 0) o[p++] = 0;
            RtpPacket.writeUint16(o, start + 2, (p - start - 4) / 4);
            o[0] |= 0x10;
        }
        int bodyLen = len - hl;
        if (p + bodyLen + 32 > o.length) { r.metrics.drop("too_large"); return; }
        System.arraycopy(b, off + hl, o, p, bodyLen);
        if (vp9 != null) {                   // picture ids keep their distances (see SvcFilter); offsets only
            int shift = p - (off + hl);
            if (vp9.pictureIdBits > 0) {
                int pid = (vp9.pictureId + pidOffset) & 0x7FFF;
                writePid(o, vp9.pictureIdOffset + shift, vp9.pictureIdBits, pid);
                lastOutPid = pid;
            }
            if (vp9.tl0PicIdx >= 0) {
                int tl0 = (vp9.tl0PicIdx + tl0Offset) & 0xFF;
                o[vp9.tl0PicIdxOffset + shift] = (byte) tl0;
                lastOutTl0 = tl0;
            }
        }
        if (vp8 != null) {
            int shift = p - (off + hl);
            int pid = -1, tl0 = -1;
            if (vp8.pictureIdBits > 0) {
                pid = (vp8.pictureId + pidOffset - tf.pidShift) & 0x7FFF;
                writePid(o, vp8.pictureIdOffset + shift, vp8.pictureIdBits, pid);
            }
            if (vp8.tl0PicIdx >= 0) {
                tl0 = (vp8.tl0PicIdx + tl0Offset) & 0xFF;
                o[vp8.tl0PicIdxOffset + shift] = (byte) tl0;
            }
            noteVp8Out(pid, vp8.pictureIdBits, tl0);      // only newer numbers move the switch point
        }
        int total = p + bodyLen;
        if (RtpPacket.seqDelta(outSeq, lastOutSeq) > 0 || packetsSent == 0) {
            lastOutSeq = outSeq;
            lastOutTs = outTs;
            lastOutNanos = now;
        }
        packetsSent++;
        octetsSent += pl;
        if (cache != null) cache.put(outSeq, o, 0, total);
        int loss = r.lossPermille;
        if (loss > 0 && ThreadLocalRandom.current().nextInt(1000) < loss) {
            // lost "on the wire": the estimator must see it as sent and then missing
            if (twccId > 0) sub.pacer.onPacketSent(sub.twccSeq++ & 0xFFFF, System.nanoTime() / 1000, total + 10);
            r.metrics.drop("test_loss");
            return;
        }
        if (r.sendToSubscriber(sub, st, o, total, twccId > 0)) {
            long sentAt = System.nanoTime();
            r.metrics.forwardedPackets.increment();
            r.metrics.queueAge((sentAt - now) / 1000);
        } else if (video) {
            // the send queue is over its bound: drop to the next keyframe rather than queue without limit
            waitingKeyframe = true;
            if (current != null) r.rtcp.requestKeyframe(current, now, false);
        }
    }

    private static void writePid(byte[] o, int at, int bits, int pid) {
        if (bits == 15) { o[at] = (byte) (0x80 | ((pid >>> 8) & 0x7F)); o[at + 1] = (byte) pid; }
        else o[at] = (byte) (pid & 0x7F);
    }
}
