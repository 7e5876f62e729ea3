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
 * @param layers      available operating points (any order); at least one. A layer whose bitrate is not
 *                    known yet (0, e.g. the first second of a publisher) is given a nominal one, so the
 *                    allocator never takes an unmeasured 720p layer for free
 */
public record SubscribedTrack(String trackId, TrackKind kind, boolean pinned, int speakerRank, int tileWidth,
                              int tileHeight, double maxFps, List<VideoLayer> layers) {

    public SubscribedTrack {
        if (trackId == null || kind == null || layers == null || layers.isEmpty()) {
            throw new IllegalArgumentException("trackId, kind and at least one layer are required");
        }
        layers = withNominalBitrates(kind, layers);
    }

    /** Audio assumes Opus at 40 kbps; video about 0.07 bits per pixel per frame, or 150 kbps × 3^spatial. */
    private static List<VideoLayer> withNominalBitrates(TrackKind kind, List<VideoLayer> layers) {
        boolean allKnown = true;
        for (VideoLayer l : layers) {
            allKnown &= l.bitrateBps() > 0;
        }
        if (allKnown) {
            return List.copyOf(layers);
        }
        java.util.ArrayList<VideoLayer> out = new java.util.ArrayList<>(layers.size());
        for (VideoLayer l : layers) {
            long bps = l.bitrateBps();
            if (bps <= 0) {
                if (kind == TrackKind.AUDIO) {
                    bps = 40_000;
                } else if (l.width() > 0 && l.height() > 0 && l.fps() > 0) {
                    bps = Math.max(30_000, (long) (0.07 * l.width() * l.height() * l.fps()));
                } else {
                    bps = 150_000L * (long) Math.pow(3, Math.min(l.spatial(), 4));
                }
                l = new VideoLayer(l.spatial(), l.temporal(), bps, l.width(), l.height(), l.fps());
            }
            out.add(l);
        }
        return List.copyOf(out);
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
