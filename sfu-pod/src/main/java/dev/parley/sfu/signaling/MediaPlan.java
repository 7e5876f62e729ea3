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
 * @param vp9PayloadType VP9 (profile 0) payload type agreed for this section (0 = none): the publish codec when
 *                       the publisher prefers VP9, or on a subscribe slot the codec VP9 tracks are sent with
 * @param vp9RtxPayloadType RTX payload type repairing VP9 on this section (0 = none)
 */
public record MediaPlan(String mid, String kind, boolean accepted, boolean sfuSends, int payloadType, String codec,
                        int clockRate, Map<String, Integer> extensions, List<String> rids, List<Long> offeredSsrcs,
                        long slotSsrc, int rtxPayloadType, List<Long> offeredRtxSsrcs, long slotRtxSsrc,
                        int vp9PayloadType, int vp9RtxPayloadType) {
    /** A plan without VP9. */
    public MediaPlan(String mid, String kind, boolean accepted, boolean sfuSends, int payloadType, String codec,
                     int clockRate, Map<String, Integer> extensions, List<String> rids, List<Long> offeredSsrcs,
                     long slotSsrc, int rtxPayloadType, List<Long> offeredRtxSsrcs, long slotRtxSsrc) {
        this(mid, kind, accepted, sfuSends, payloadType, codec, clockRate, extensions, rids, offeredSsrcs, slotSsrc,
                rtxPayloadType, offeredRtxSsrcs, slotRtxSsrc, 0, 0);
    }

    public int ext(String uri) { return extensions.getOrDefault(uri, 0); }
    public boolean isAudio() { return "audio".equals(kind); }
    public boolean isVideo() { return "video".equals(kind); }
}
