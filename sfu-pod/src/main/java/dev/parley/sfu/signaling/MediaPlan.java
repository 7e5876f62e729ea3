package dev.parley.sfu.signaling;

import java.util.List;
import java.util.Map;

/**
 * What the answer agreed for one m= section.
 *
 * @param accepted   false for rejected sections (port 0)
 * @param sfuSends   true on the subscribe connection (SFU → browser)
 * @param slotSsrc   SSRC the SFU sends on this section (subscribe only)
 * @param extensions negotiated header extension URI → id
 * @param rids       simulcast rids the browser sends, in its order (publish video only)
 * @param offeredSsrcs SSRCs the browser declared with a=ssrc (primary streams first)
 * @param rtxPayloadType negotiated RTX payload type for the codec (0 = no RTX)
 * @param offeredRtxSsrcs RTX SSRCs the browser declared with a=ssrc-group:FID (publish)
 * @param slotRtxSsrc RTX SSRC the SFU sends retransmissions on (subscribe video with RTX)
 */
public record MediaPlan(String mid, String kind, boolean accepted, boolean sfuSends, int payloadType, String codec,
                        int clockRate, Map<String, Integer> extensions, List<String> rids, List<Long> offeredSsrcs,
                        long slotSsrc, int rtxPayloadType, List<Long> offeredRtxSsrcs, long slotRtxSsrc) {
    public int ext(String uri) { return extensions.getOrDefault(uri, 0); }
    public boolean isAudio() { return "audio".equals(kind); }
    public boolean isVideo() { return "video".equals(kind); }
}
