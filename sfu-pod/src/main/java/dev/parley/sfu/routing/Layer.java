package dev.parley.sfu.routing;

import dev.parley.media.codec.Vp8Descriptor;

/** One incoming RTP stream of a track: the single stream, or one simulcast encoding (rid). */
final class Layer {
    final PublishedTrack track;
    final String rid;
    final int index;
    int ssrc;
    int width, height;                 // from the last VP8 keyframe
    long lastPacketNanos;
    long lastPliNanos;
    final Vp8Descriptor vp8 = new Vp8Descriptor();
    /** VP9 descriptor and SVC structure of this stream (VP9 tracks). */
    final SvcStream svc = new SvcStream();
    // receive statistics for RR and upstream NACK
    boolean seqInit;
    int highestSeq;
    int cycles;
    long received;
    long lastSrNtpMiddle;
    long lastSrAtNanos;
    /** Packets since the newest keyframe while a new subscriber of this layer waits for its connection (null: none). */
    KeyframeHold hold;
    /** RTX stream repairing this layer (0 = not seen yet). */
    int rtxSsrc;
    /** Bytes received on this layer (RTP packets as they arrived) and the rate measured from them (allocation input). */
    long bytesReceived;
    long bitrateBps;
    private long rateBytes, rateNanos;

    /** Bytes and pictures received per VP8 temporal layer (TID 0..3); see {@link #onTemporal}. */
    private final long[] tidBytes = new long[4], tidPictures = new long[4];
    private final long[] tidBytesMark = new long[4], tidPicturesMark = new long[4];
    /**
     * Temporal layers measured by {@link #updateBitrate}: TIDs 0..temporalLayers-1 were seen in the last interval
     * (0 = the stream carries no TIDs); per TID k the share (‰) of the bytes of TIDs ≤ k and their picture rate.
     */
    int temporalLayers;
    final int[] temporalSharePermille = new int[4];
    final double[] temporalFps = new double[4];

    /** One received VP8 packet of temporal layer {@code tid}; {@code pictureStart} on a picture's first packet. */
    void onTemporal(int tid, int len, boolean pictureStart) {
        tidBytes[tid] += len;
        if (pictureStart) tidPictures[tid]++;
    }

    /** Updates {@link #bitrateBps} (and the temporal layers' shares) from the bytes since the previous call (call about once a second). */
    void updateBitrate(long now) {
        if (rateNanos != 0 && now - rateNanos >= 500_000_000L) {
            long bps = (bytesReceived - rateBytes) * 8_000_000_000L / (now - rateNanos);
            bitrateBps = bitrateBps == 0 ? bps : (bitrateBps + bps) / 2;   // smooths keyframe bursts a little
            updateTemporal(now - rateNanos);
        }
        if (rateNanos == 0 || now - rateNanos >= 500_000_000L) { rateBytes = bytesReceived; rateNanos = now; }
    }

    private void updateTemporal(long intervalNanos) {
        long all = 0;
        int top = -1;
        for (int k = 0; k < 4; k++) {
            long db = tidBytes[k] - tidBytesMark[k];
            all += db;
            if (db > 0) top = k;
        }
        int previous = temporalLayers;
        temporalLayers = top + 1;
        long bytes = 0, pictures = 0;
        for (int k = 0; k <= top; k++) {
            bytes += tidBytes[k] - tidBytesMark[k];
            pictures += tidPictures[k] - tidPicturesMark[k];
            int share = (int) (bytes * 1000 / all);
            double fps = pictures * 1e9 / intervalNanos;
            // smoothed like the bitrate: keyframes (TID 0) make single intervals lopsided
            temporalSharePermille[k] = previous > k ? (temporalSharePermille[k] + share) / 2 : share;
            temporalFps[k] = previous > k ? (temporalFps[k] + fps) / 2 : fps;
        }
        System.arraycopy(tidBytes, 0, tidBytesMark, 0, 4);
        System.arraycopy(tidPictures, 0, tidPicturesMark, 0, 4);
    }
    /** seq + 1 of recently received packets, by seq mod {@value #SEEN}: RTX for a packet already here is ignored. */
    static final int SEEN = 1024;
    private final int[] seen = new int[SEEN];

    /** Records {@code seq} as received; false if it already was (a duplicate or an RTX probe of old media). */
    boolean markSeen(int seq) {
        int i = seq & (SEEN - 1);
        if (seen[i] == seq + 1) return false;
        seen[i] = seq + 1;
        return true;
    }

    Layer(PublishedTrack track, String rid, int index) {
        this.track = track;
        this.rid = rid;
        this.index = index;
    }

    boolean active(long now) { return ssrc != 0 && now - lastPacketNanos < 1_500_000_000L; }

    long extendedHighest() { return ((long) cycles << 16) | highestSeq; }

    // RFC 3550 A.3 / A.8 receiver-report statistics
    int baseSeq;
    private long expectedPrior, receivedPrior;
    private long jitterQ4;                 // interarrival jitter × 16, RTP units
    private int lastTransit;
    private boolean transitInit;

    /**
     * Counts a received packet (RFC 3550 A.1/A.8): sequence bookkeeping and jitter.
     * @return how far {@code seq} moved the highest sequence number forward (≤ 0: old, duplicate or first packet)
     */
    int onPacket(int seq, long rtpTimestamp, long arrivalNanos) {
        received++;
        onArrival(rtpTimestamp, arrivalNanos);
        if (!seqInit) { startSequence(seq); return 0; }
        int d = (short) (seq - highestSeq);
        if (d <= 0) return d;
        if (seq < highestSeq) cycles++;
        highestSeq = seq;
        return d;
    }

    /** Interarrival jitter update from one packet's RTP timestamp and its arrival (ns, System.nanoTime). */
    private void onArrival(long rtpTimestamp, long arrivalNanos) {
        int arrivalRtp = (int) (arrivalNanos / 1000 * track.clockRate / 1_000_000);
        int transit = arrivalRtp - (int) rtpTimestamp;
        if (transitInit) {
            int d = Math.abs(transit - lastTransit);
            jitterQ4 += d - ((jitterQ4 + 8) >> 4);
        }
        transitInit = true;
        lastTransit = transit;
    }

    long jitter() { return jitterQ4 >> 4; }

    /** The first packet of a (new) stream on this layer: statistics start over from it. */
    void startSequence(int seq) {
        seqInit = true;
        highestSeq = seq;
        baseSeq = seq;
        cycles = 0;
        received = 1;
        expectedPrior = 0;
        receivedPrior = 0;
    }

    long expected() { return extendedHighest() - baseSeq + 1; }

    /** Packets expected but not received since the first one (may be negative with duplicates). */
    int cumulativeLost() { return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, expected() - received)); }

    /** Fraction lost (8-bit fixed point) since the previous call: call once per receiver report. */
    int fractionLostSinceLastReport() {
        long expected = expected();
        long expectedInterval = expected - expectedPrior, receivedInterval = received - receivedPrior;
        expectedPrior = expected;
        receivedPrior = received;
        long lostInterval = expectedInterval - receivedInterval;
        if (expectedInterval <= 0 || lostInterval <= 0) return 0;
        return (int) Math.min(255, (lostInterval << 8) / expectedInterval);
    }
}
