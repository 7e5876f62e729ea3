package dev.parley.recorder.media;

import java.util.Locale;

/** One logical track to record: its id (from the meeting) and RTP payload description. */
public record TrackSpec(String trackId, Kind kind, String codec, int payloadType, int clockRate, int channels) {
    public enum Kind { AUDIO, VIDEO }

    public TrackSpec {
        if (trackId == null || !trackId.matches("[A-Za-z0-9_.-]{1,128}")) {
            throw new IllegalArgumentException("track id must be 1-128 of [A-Za-z0-9_.-]: " + trackId);
        }
    }

    public static TrackSpec vp8(String trackId) {
        return new TrackSpec(trackId, Kind.VIDEO, "VP8", 96, 90_000, 0);
    }

    public static TrackSpec opus(String trackId) {
        return new TrackSpec(trackId, Kind.AUDIO, "opus", 111, 48_000, 2);
    }

    public String kindName() {
        return kind.name().toLowerCase(Locale.ROOT);
    }

    /** The SDP media section ffmpeg reads to depacketize this track from a loopback UDP port. */
    public String sdp(int port) {
        String rtpmap = kind == Kind.VIDEO ? codec + "/" + clockRate : codec + "/" + clockRate + "/" + channels;
        return "v=0\r\n"
                + "o=- 0 0 IN IP4 127.0.0.1\r\n"
                + "s=parley-recorder\r\n"
                + "c=IN IP4 127.0.0.1\r\n"
                + "t=0 0\r\n"
                + "m=" + kindName() + " " + port + " RTP/AVP " + payloadType + "\r\n"
                + "a=rtpmap:" + payloadType + " " + rtpmap + "\r\n";
    }
}
