package dev.parley.sfu.routing;

import dev.parley.media.codec.Vp8Descriptor;
import dev.parley.media.codec.Vp9Descriptor;
import dev.parley.media.rtp.RtpPacket;

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
}
