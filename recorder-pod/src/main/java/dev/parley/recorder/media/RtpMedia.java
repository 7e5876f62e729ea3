package dev.parley.recorder.media;

import dev.parley.media.rtp.RtpPacket;

/**
 * The one check the recorder adds on top of media-core's {@link RtpPacket}: is this a well-formed RTP media
 * packet (version 2, not RTCP on a muxed port by RFC 5761, CSRCs, extension and padding within the packet)?
 * A packet that passes has a non-negative {@link RtpPacket#payloadLength}. No allocation.
 */
public final class RtpMedia {
    private RtpMedia() {
    }

    public static boolean wellFormed(byte[] b, int off, int len) {
        return RtpPacket.isRtpOrRtcp(b, off, len) && !RtpPacket.isRtcp(b, off, len)
                && RtpPacket.payloadLength(b, off, len) >= 0;
    }
}
