package dev.parley.sfu.allocation;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Picks operating points for one video track: which layer the layout wants, and in which order to give
 * things up when bandwidth is short.
 *
 * <p>Wanted layer: the lowest spatial layer at least as large as the tile (no point sending 720p into a
 * 320-pixel thumbnail), the highest temporal layer within the subscriber's fps limit.
 *
 * <p>Degradation order: frame rate goes before resolution. A screen share keeps resolution down to its
 * lowest frame rate (text must stay legible; slides rarely move). A camera drops temporal layers only down to
 * the second one (about 15 fps of 30) before stepping down a resolution, because below that motion looks
 * broken; on its lowest resolution every temporal layer is allowed.
 */
final class LayerSelector {

    private static final Comparator<VideoLayer> BEST_FIRST =
            Comparator.comparingInt(VideoLayer::spatial).thenComparingInt(VideoLayer::temporal).reversed();

    private LayerSelector() {
    }

    /** The layer the layout asks for with unlimited bandwidth. */
    static VideoLayer wanted(SubscribedTrack track) {
        int maxSpatial = 0;
        for (VideoLayer l : track.layers()) {
            maxSpatial = Math.max(maxSpatial, l.spatial());
        }
        int spatial = maxSpatial;
        if (track.kind() != TrackKind.AUDIO) {
            // smallest spatial layer that fills the tile when fitted inside it (object-fit: contain)
            for (int s = 0; s < maxSpatial; s++) {
                VideoLayer any = anyOf(track, s);
                if (any != null && (any.width() >= track.tileWidth() || any.height() >= track.tileHeight())) {
                    spatial = s;
                    break;
                }
            }
        }
        // highest temporal layer within the fps limit; the lowest one if even that exceeds it
        VideoLayer best = null;
        VideoLayer lowest = null;
        for (VideoLayer l : track.layers()) {
            if (l.spatial() != spatial) {
                continue;
            }
            if (lowest == null || l.temporal() < lowest.temporal()) {
                lowest = l;
            }
            // measured rates wobble around the nominal one: 31 fps is within a 30 fps limit
            boolean withinFps = track.maxFps() <= 0 || l.fps() <= track.maxFps() * 1.1 + 0.5;
            if (withinFps && (best == null || l.temporal() > best.temporal())) {
                best = l;
            }
        }
        return best != null ? best : lowest;
    }

    /**
     * Operating points not above {@code wanted}, most preferred first. The allocator takes the first one that
     * fits the remaining budget.
     */
    static List<VideoLayer> candidates(SubscribedTrack track, VideoLayer wanted) {
        List<VideoLayer> all = new ArrayList<>();
        for (VideoLayer l : track.layers()) {
            if (l.spatial() <= wanted.spatial() && l.temporal() <= wanted.temporal()) {
                all.add(l);
            }
        }
        all.sort(BEST_FIRST);
        if (track.kind() != TrackKind.CAMERA) {
            return all;
        }
        List<VideoLayer> ordered = new ArrayList<>(all.size());
        for (VideoLayer l : all) {
            if (l.spatial() == 0 || l.temporal() >= Math.min(1, wanted.temporal())) {
                ordered.add(l);
            }
        }
        return ordered;
    }

    private static VideoLayer anyOf(SubscribedTrack track, int spatial) {
        for (VideoLayer l : track.layers()) {
            if (l.spatial() == spatial) {
                return l;
            }
        }
        return null;
    }
}
