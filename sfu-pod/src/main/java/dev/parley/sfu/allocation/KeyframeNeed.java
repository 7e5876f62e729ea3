package dev.parley.sfu.allocation;

/**
 * The forwarder needs a keyframe of {@code trackId}'s spatial layer {@code spatial} before it can switch a
 * subscriber onto it (resume, or a spatial change). The SFU maps it to the publisher stream (SSRC) and sends
 * it through the {@link KeyframeRequestCoalescer}, like a subscriber's PLI.
 */
public record KeyframeNeed(String trackId, int spatial) {
}
