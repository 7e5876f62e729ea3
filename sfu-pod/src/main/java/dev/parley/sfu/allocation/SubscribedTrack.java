package dev.parley.sfu.allocation;

import java.util.List;

/**
 * One track a subscriber receives, as the allocator sees it.
 *
 * @param trackId     the publisher's track id (stable across subscribers: dynacast aggregates by it)
 * @param kind        audio, screen share or camera
 * @param pinned      the subscriber pinned this tile (highest camera priority)
 * @param speakerRank position in the active speakers list (0 = dominant), -1 when not speaking
 * @param tileWidth   rendered tile size in CSS pixels from the client's layout; 0 × 0 = not visible
 * @param tileHeight  see tileWidth
 * @param maxFps      subscriber's frame rate limit from its subscribe request, 0 = none
 * @param layers      available operating points (any order); at least one
 */
public record SubscribedTrack(String trackId, TrackKind kind, boolean pinned, int speakerRank, int tileWidth,
                              int tileHeight, double maxFps, List<VideoLayer> layers) {

    public SubscribedTrack {
        if (trackId == null || kind == null || layers == null || layers.isEmpty()) {
            throw new IllegalArgumentException("trackId, kind and at least one layer are required");
        }
        layers = List.copyOf(layers);
    }

    public static SubscribedTrack audio(String trackId, long bitrateBps) {
        return new SubscribedTrack(trackId, TrackKind.AUDIO, false, -1, 0, 0, 0,
                List.of(VideoLayer.audio(bitrateBps)));
    }

    public static SubscribedTrack video(String trackId, TrackKind kind, int tileWidth, int tileHeight,
                                        List<VideoLayer> layers) {
        return new SubscribedTrack(trackId, kind, false, -1, tileWidth, tileHeight, 0, layers);
    }

    public SubscribedTrack withPinned(boolean value) {
        return new SubscribedTrack(trackId, kind, value, speakerRank, tileWidth, tileHeight, maxFps, layers);
    }

    public SubscribedTrack withSpeakerRank(int rank) {
        return new SubscribedTrack(trackId, kind, pinned, rank, tileWidth, tileHeight, maxFps, layers);
    }

    public SubscribedTrack withTile(int width, int height) {
        return new SubscribedTrack(trackId, kind, pinned, speakerRank, width, height, maxFps, layers);
    }

    public SubscribedTrack withMaxFps(double fps) {
        return new SubscribedTrack(trackId, kind, pinned, speakerRank, tileWidth, tileHeight, fps, layers);
    }

    boolean visible() {
        return kind == TrackKind.AUDIO || (tileWidth > 0 && tileHeight > 0);
    }
}
