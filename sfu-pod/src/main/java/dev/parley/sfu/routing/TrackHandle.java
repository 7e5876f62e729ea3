package dev.parley.sfu.routing;

import dev.parley.media.rtp.RtpPacket;

import java.util.Arrays;

/**
 * A published track as the relay package sees it (routing keeps its classes package-private): what it is, its taps,
 * and — for a track that arrives by relay — the way its packets enter this SFU's fan-out. Media thread only.
 */
public final class TrackHandle {
    final PublishedTrack track;
    private final Router router;

    TrackHandle(Router router, PublishedTrack track) {
        this.router = router;
        this.track = track;
    }

    public String trackId() { return track.trackId; }
    public String meetingId() { return track.owner.meeting.id; }
    public boolean video() { return track.video; }
    public int layers() { return track.layers.length; }
    public int clockRate() { return track.clockRate; }
    /** {@code opus}, {@code VP8}, {@code VP9} or {@code H264}. */
    public String codec() { return !track.video ? "opus" : track.vp8 ? "VP8" : track.vp9 ? "VP9" : "H264"; }
    /** The one-byte header extension id carrying the audio level on this track's packets (0 = none). */
    public int audioLevelExtId() { return track.audioLevelExtId; }
    /** True if this track itself arrives by relay (a relayed packet is relayed further only when asked to). */
    public boolean relayed() { return track.upstream != null; }
    /** Still published (not unpublished or removed since the handle was taken). */
    public boolean live() { return track.owner.tracksByMid.get(track.mid) == track; }

    public void addTap(TrackTap tap) {
        TrackTap[] t = Arrays.copyOf(track.taps, track.taps.length + 1);
        t[t.length - 1] = tap;
        track.taps = t;
    }

    public void removeTap(TrackTap tap) {
        track.taps = Arrays.stream(track.taps).filter(x -> x != tap).toArray(TrackTap[]::new);
    }

    /**
     * The largest tile this track is shown in here, over every local slot carrying it and every tap (a relay further
     * on), packed as {@code width << 32 | height}: what a relay feeding this SFU must carry (0 = nobody watches;
     * {@link #ANY_TILE} when a tap does not know yet). Once a second per relayed track, not per packet.
     */
    public long largestTile() {
        int w = 0, h = 0;
        for (Slot s : track.slots) {
            w = Math.max(w, s.maxWidth);
            h = Math.max(h, s.maxHeight);
        }
        for (TrackTap t : track.taps) {
            long tile = t.wantedTile();
            if (tile < 0) return ANY_TILE;
            w = Math.max(w, (int) (tile >>> 32));
            h = Math.max(h, (int) tile);
        }
        return (long) w << 32 | h;
    }

    /** A tile larger than any layer: every layer is wanted. */
    public static final long ANY_TILE = (long) Integer.MAX_VALUE << 32 | Integer.MAX_VALUE;

    /**
     * The simulcast layer a tile of {@code width} × {@code height} needs, by the layers' last known sizes (the same rule
     * as a local slot's: the largest layer that fits, else the smallest); the top layer while a layer that carries
     * packets has no known size yet (a layer that never carried any is left out). A layer the publisher was told to
     * pause keeps its last size, so a growing tile asks for it again.
     */
    public int layerForTile(int width, int height, long now) {
        Layer[] ls = track.layers;
        int best = -1, smallest = -1;
        for (Layer l : ls) {
            if (l.width == 0) {
                if (l.active(now)) return ls.length - 1;
                continue;
            }
            if (smallest < 0 || l.width < ls[smallest].width) smallest = l.index;
            if (l.width <= width && l.height <= height && (best < 0 || l.width > ls[best].width)) best = l.index;
        }
        return best >= 0 ? best : Math.max(smallest, 0);
    }

    /** A keyframe request for one layer, coalesced with every local subscriber's (a PLI from a relay's receiver). */
    public void requestKeyframe(int layerIndex, long now) {
        if (layerIndex >= 0 && layerIndex < track.layers.length) router.rtcp.requestKeyframe(track.layers[layerIndex], now, false);
    }

    /** A relayed track's layers are known by the relay's wire SSRCs (keyframe requests are keyed by them). */
    public void setLayerSsrc(int layerIndex, int ssrc) { if (layerIndex < track.layers.length) track.layers[layerIndex].ssrc = ssrc; }

    /** SSRC the layer is known by here (0 = no packet yet); relayed tracks use the relay's wire SSRCs. */
    public int layerSsrc(int layerIndex) { return track.layers[layerIndex].ssrc; }

    /**
     * A relayed packet (decrypted, in the relay's wire form) for layer {@code layerIndex}: receive statistics, then the
     * same parse and fan-out as a local publisher's packet. Returns false if it was dropped (counted).
     */
    public boolean inject(int layerIndex, byte[] b, int off, int len, long now) {
        Layer l = track.layers[layerIndex];
        if (RtpPacket.payloadType(b, off) != track.payloadType) { router.metrics.drop("relay_payload_type"); return false; }
        int hl = RtpPacket.headerLength(b, off, len), pl = RtpPacket.payloadLength(b, off, len);
        if (hl < 0 || pl < 0) { router.metrics.drop("rtp_malformed"); return false; }
        l.lastPacketNanos = now;
        l.onPacket(RtpPacket.sequence(b, off), RtpPacket.timestamp(b, off), now);
        l.bytesReceived += len;
        router.route(track.owner, l, b, off, len, hl, pl, now, false);
        return true;
    }

    /** A receiver report block's statistics of one layer (RFC 3550 A.3): false while no packet arrived on it. */
    public boolean reportable(int layerIndex) { Layer l = track.layers[layerIndex]; return l.ssrc != 0 && l.seqInit; }
    public int fractionLostSinceLastReport(int layerIndex) { return track.layers[layerIndex].fractionLostSinceLastReport(); }
    public long extendedHighest(int layerIndex) { return track.layers[layerIndex].extendedHighest(); }
    public long jitter(int layerIndex) { return track.layers[layerIndex].jitter(); }

    /** Loss and packets seen on one layer (for the relay's receiver statistics in {@code /state}). */
    public long received(int layerIndex) { return track.layers[layerIndex].received; }
    public int lost(int layerIndex) { Layer l = track.layers[layerIndex]; return l.seqInit ? l.cumulativeLost() : 0; }
}
