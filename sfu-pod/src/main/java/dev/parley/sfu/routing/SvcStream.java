package dev.parley.sfu.routing;

import dev.parley.media.codec.Vp9Descriptor;

/**
 * What a VP9 SVC stream (one RTP stream carrying every spatial and temporal layer) is made of, as far as the
 * SFU has seen: the spatial layers' sizes from the last scalability structure and the bitrate measured per
 * spatial layer, which the layer selection ({@link SvcSelection}) turns into operating points.
 * Media thread only; {@link #onPacket} allocates nothing.
 */
final class SvcStream {
    static final int MAX = Vp9Descriptor.MAX_SPATIAL;
    /** Reused for every packet of the stream. */
    final Vp9Descriptor descriptor = new Vp9Descriptor();
    /** Spatial layers announced by the last SS with sizes (0 = none seen yet) and their sizes. */
    int spatialLayers;
    final int[] width = new int[MAX], height = new int[MAX];
    /** Highest SID and TID seen in packets (-1 = none). */
    int topSpatial = -1, topTemporal = -1;
    /** Measured bitrate per spatial layer (that layer's bytes only, every temporal layer). */
    final long[] spatialBps = new long[MAX];
    /** Measured picture rate of temporal layers 0..t (index t), 0 = not measured. */
    final double[] temporalFps = new double[MAX];
    private final long[] bytes = new long[MAX], mark = new long[MAX];
    private final long[] pictures = new long[MAX], picturesMark = new long[MAX];
    private long markNanos;

    /** One received packet (not a repair) whose descriptor was just parsed into {@link #descriptor}. */
    void onPacket(int len) {
        Vp9Descriptor d = descriptor;
        int sid = d.sid();
        bytes[sid] += len;
        if (sid > topSpatial) topSpatial = sid;
        if (d.tid() > topTemporal) topTemporal = d.tid();
        if (d.startOfPicture()) pictures[d.tid()]++;
        if (d.ssPresent && d.ssResolutions) {
            spatialLayers = d.ssSpatialLayers;
            for (int s = 0; s < spatialLayers; s++) { width[s] = d.ssWidth[s]; height[s] = d.ssHeight[s]; }
        }
    }

    /** Updates {@link #spatialBps} from the bytes since the previous call (about once a second). */
    void updateRates(long now) {
        if (markNanos != 0 && now - markNanos >= 500_000_000L) {
            for (int s = 0; s < MAX; s++) {
                long bps = (bytes[s] - mark[s]) * 8_000_000_000L / (now - markNanos);
                spatialBps[s] = spatialBps[s] == 0 ? bps : (spatialBps[s] + bps) / 2;
            }
            long upTo = 0;
            for (int t = 0; t < MAX; t++) {
                upTo += pictures[t] - picturesMark[t];
                double fps = upTo * 1e9 / (now - markNanos);
                temporalFps[t] = temporalFps[t] == 0 ? fps : (temporalFps[t] + fps) / 2;
            }
        }
        if (markNanos == 0 || now - markNanos >= 500_000_000L) {
            System.arraycopy(bytes, 0, mark, 0, MAX);
            System.arraycopy(pictures, 0, picturesMark, 0, MAX);
            markNanos = now;
        }
    }

    /** Spatial layers known: from the SS, else from the SIDs seen. */
    int layers() { return Math.max(spatialLayers, topSpatial + 1); }

    /**
     * The lowest temporal layer whose measured picture rate reaches {@code maxFps} (10 % slack), the top one if
     * none does; {@link SvcFilter#ALL} without a limit or before anything was measured.
     */
    int temporalForFps(int maxFps) {
        if (maxFps <= 0 || topTemporal < 0 || temporalFps[topTemporal] == 0) return SvcFilter.ALL;
        for (int t = 0; t < topTemporal; t++) if (temporalFps[t] >= maxFps * 0.9) return t;
        return SvcFilter.ALL;
    }

    /** What forwarding spatial layers 0..sid costs (each upper layer builds on the ones below). */
    long costUpTo(int sid) {
        long c = 0;
        for (int s = 0; s <= sid && s < MAX; s++) c += spatialBps[s];
        return c;
    }
}
