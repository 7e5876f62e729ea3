package dev.parley.sfu.allocation;

import java.util.ArrayList;
import java.util.List;

/** A typical three-layer VP8 simulcast camera (180p/360p/720p × 7.5/15/30 fps) for tests. */
final class Layers {

    static final long[][] CAMERA_BPS = {
            {60_000, 100_000, 150_000},
            {200_000, 320_000, 500_000},
            {700_000, 1_100_000, 1_700_000}};
    static final int[][] SIZE = {{320, 180}, {640, 360}, {1280, 720}};
    static final double[] FPS = {7.5, 15, 30};

    private Layers() {
    }

    static List<VideoLayer> camera() {
        List<VideoLayer> out = new ArrayList<>();
        for (int s = 0; s < 3; s++) {
            for (int t = 0; t < 3; t++) {
                out.add(new VideoLayer(s, t, CAMERA_BPS[s][t], SIZE[s][0], SIZE[s][1], FPS[t]));
            }
        }
        return out;
    }

    static SubscribedTrack cam(String id, int tileW, int tileH) {
        return SubscribedTrack.video(id, TrackKind.CAMERA, tileW, tileH, camera());
    }
}
