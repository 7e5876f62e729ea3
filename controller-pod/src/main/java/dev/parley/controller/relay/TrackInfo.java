package dev.parley.controller.relay;

/**
 * A published track as the owner learnt it from the origin SFU's {@code track_published} event: its publisher,
 * kind ({@code audio}/{@code video}) and simulcast layer count (1 without simulcast).
 */
public record TrackInfo(String trackId, String publisher, String kind, int simulcastLayers) {
    public TrackInfo {
        simulcastLayers = Math.max(1, simulcastLayers);
    }

    /** The highest layer index: what a subscriber whose tile size the owner does not know may need. */
    public int topLayer() {
        return simulcastLayers - 1;
    }
}
