package dev.parley.bench.media;

import dev.parley.media.rtcp.Rtcp;
import dev.parley.media.rtp.RtpPacket;

/** A load-client publisher's RTCP in: which of its video layers the SFU asked a keyframe of (PLI). */
public final class PliRequests {
    private PliRequests() {
    }

    /**
     * Unprotects {@code b} if it is SRTCP and marks {@code keyframeWanted[l]} for every PLI naming
     * {@code videoSsrc[l]}; anything else (RTP, a bad tag, other feedback) is ignored.
     */
    public static void read(ClientTransport t, byte[] b, int len, int[] videoSsrc, boolean[] keyframeWanted) {
        if (!RtpPacket.isRtcp(b, 0, len)) return;
        int n = t.rx.unprotectRtcp(b, 0, len);
        if (n < 0) return;
        for (int o = 0; o >= 0; o = Rtcp.next(b, o, n)) {
            if (Rtcp.type(b, o) == Rtcp.PSFB && Rtcp.count(b, o) == Rtcp.FMT_PLI) {
                int media = Rtcp.mediaSsrc(b, o);
                for (int l = 0; l < videoSsrc.length; l++) if (videoSsrc[l] == media) keyframeWanted[l] = true;
            }
        }
    }
}
