package dev.parley.sfu.routing;

import dev.parley.media.codec.Vp8Descriptor;

/** One incoming RTP stream of a track: the single stream, or one simulcast encoding (rid). */
final class Layer {
    final PublishedTrack track;
    final String rid;
    final int index;
    int ssrc;
    int width, height;                 // from the last VP8 keyframe
    long lastPacketNanos;
    long lastPliNanos;
    final Vp8Descriptor vp8 = new Vp8Descriptor();
    // receive statistics for RR and upstream NACK
    boolean seqInit;
    int highestSeq;
    int cycles;
    long received;
    long lastSrNtpMiddle;
    long lastSrAtNanos;

    Layer(PublishedTrack track, String rid, int index) {
        this.track = track;
        this.rid = rid;
        this.index = index;
    }

    boolean active(long now) { return ssrc != 0 && now - lastPacketNanos < 1_500_000_000L; }

    long extendedHighest() { return ((long) cycles << 16) | highestSeq; }
}
