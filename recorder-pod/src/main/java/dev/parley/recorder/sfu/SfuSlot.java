package dev.parley.recorder.sfu;

import dev.parley.recorder.media.RtpSink;

/** One recvonly m= section of our subscribe connection: the SFU sends one remote track on it. */
final class SfuSlot {
    final String mid;
    final boolean video;
    final int ssrc;
    /** Recorder-safe track id from the slot assignment, or null while unknown. */
    volatile String trackId;
    volatile RtpSink sink;
    volatile long firstPacketNanos;
    volatile long lastPacketNanos;
    /** Control thread only. */
    long lastPliNanos;
    SfuSlotSource source;

    SfuSlot(String mid, boolean video, int ssrc) {
        this.mid = mid;
        this.video = video;
        this.ssrc = ssrc;
    }

    /** SFU track ids are {@code participant:mid}; the recorder's allow [A-Za-z0-9_.-]. */
    static String recorderTrackId(String sfuTrackId) {
        String s = sfuTrackId.replaceAll("[^A-Za-z0-9_.-]", "_");
        return s.length() > 128 ? s.substring(s.length() - 128) : s;
    }
}
