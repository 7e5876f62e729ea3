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
 */
public record MediaPlan(String mid, String kind, boolean accepted, boolean sfuSends, int payloadType, String codec,
                        int clockRate, Map<String, Integer> extensions, List<String> rids, List<Long> offeredSsrcs,
                        long slotSsrc) {
    public int ext(String uri) { return extensions.getOrDefault(uri, 0); }
    public boolean isAudio() { return "audio".equals(kind); }
    public boolean isVideo() { return "video".equals(kind); }
}
