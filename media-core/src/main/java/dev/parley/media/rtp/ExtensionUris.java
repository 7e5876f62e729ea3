package dev.parley.media.rtp;

/** The header-extension URIs Parley negotiates (RFC 8285 a=extmap). */
public final class ExtensionUris {
    public static final String MID = "urn:ietf:params:rtp-hdrext:sdes:mid";
    public static final String RID = "urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id";
    public static final String REPAIRED_RID = "urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id";
    public static final String ABS_SEND_TIME = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time";
    public static final String TRANSPORT_CC = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01";
    public static final String AUDIO_LEVEL = "urn:ietf:params:rtp-hdrext:ssrc-audio-level";

    private ExtensionUris() {}
}
