package dev.parley.sfu.routing;

import dev.parley.media.codec.Vp9Descriptor;


/**
 * One video slot's VP9 SVC layer filter (docs/sfu.md "VP9 SVC"): of the single RTP stream that carries every
 * layer, forwards the packets whose spatial layer is at most {@link #currentSpatial} and temporal layer at most
 * {@link #currentTemporal}, and keeps what the receiver sees whole:
 * <ul>
 * <li>the marker bit (end of picture) goes on the last packet forwarded of each picture — the packet that ends
 *     the layer frame (E) of the highest spatial layer forwarded ({@link #marker}); without it the receiver's
 *     frame buffer waits for spatial layers that never come;</li>
 * <li>sequence numbers stay dense: every dropped packet takes one off the numbers after it ({@link #seqShift}),
 *     so a dropped layer never looks like loss (same bookkeeping as {@link TemporalFilter}: a gap reserves the
 *     shift of its time; a late packet of a dropped layer whose number was reserved is answered {@link #FILL}).
 *     Picture ids are not renumbered: VP9 receivers expect gaps where temporal layers are not received, and
 *     flexible-mode references (P_DIFF) are distances between the original ids.</li>
 * </ul>
 * The current layers follow the targets only where the receiver can decode, at the first packet of a picture:
 * down at any picture (a lower layer never references a higher one); spatially up only at a keyframe (its upper
 * layers are predicted from the lower ones of the same picture only — in L3T3_KEY the only switch point; the
 * selection asks the publisher for one); temporally up at a keyframe or, one layer at a time, at a picture of
 * the next layer marked as switching-up point (U, as libwebrtc sets it).
 *
 * <p>Media thread only; {@link #admit} allocates nothing.
 */
final class SvcFilter {
    static final int DROP = TemporalFilter.DROP, FORWARD = TemporalFilter.FORWARD, FILL = TemporalFilter.FILL;
    /** Target meaning "every layer" (SID and TID have 3 bits). */
    static final int ALL = 7;

    /** Highest spatial / temporal layer the selection wants forwarded. */
    int targetSpatial = ALL, targetTemporal = ALL;
    /** Highest spatial / temporal layer forwarded now. */
    int currentSpatial = ALL, currentTemporal = ALL;
    /** Set by a {@link #FORWARD}ing or {@link #FILL}ing {@link #admit}: subtract from the packet's sequence number. */
    int seqShift;
    /** Set by a forwarding {@link #admit}: the packet must carry the marker bit (it ends the picture as forwarded). */
    boolean marker;
    /** Changes of {@link #currentSpatial} (observability). */
    long spatialSwitches;

    private boolean pictureInit;
    private int lastPictureId;
    private boolean upWanted, temporalUpWanted;
    private long upAskedAt, temporalUpSince;

    private final DenseSequence seqs = new DenseSequence();

    /** A new input stream starts at the next packet (a keyframe): current layers jump to the targets. */
    void reset() {
        seqs.reset();
        pictureInit = false;
        currentSpatial = targetSpatial;
        currentTemporal = targetTemporal;
    }

    /**
     * Decides the fate of the packet with input sequence number {@code seq} and descriptor {@code d}:
     * {@link #FORWARD} (with {@link #seqShift} and {@link #marker} set), {@link #DROP}, or {@link #FILL}
     * (dropped, but the receiver must get a padding packet numbered {@code seq - seqShift}).
     */
    int admit(int seq, Vp9Descriptor d, boolean keyframe) {
        marker = false;
        int delta = seqs.delta(seq);
        if (delta > 0) picture(d, keyframe);
        int sid = d.sid();
        int fate = seqs.admit(seq, delta, sid <= currentSpatial && d.tid() <= currentTemporal);
        seqShift = seqs.shift;
        if (fate == FORWARD) marker = d.endOfFrame && sid == currentSpatial;
        return fate;
    }

    /** Packets this filter dropped (or turned into padding fills). */
    long droppedPackets() {
        return seqs.dropped;
    }

    /** At the first packet of each new picture: moves the current layers towards the targets where decodable. */
    private void picture(Vp9Descriptor d, boolean keyframe) {
        boolean start;
        if (d.pictureIdBits > 0) {
            start = !pictureInit || d.pictureId != lastPictureId;
            pictureInit = true;
            lastPictureId = d.pictureId;
        } else {
            start = d.startOfPicture();
        }
        if (!start) return;
        int before = currentSpatial;
        if (keyframe) {                                       // a keyframe refreshes every reference
            currentSpatial = targetSpatial;
            currentTemporal = targetTemporal;
        } else {
            if (targetSpatial < currentSpatial) currentSpatial = targetSpatial;
            if (targetTemporal < currentTemporal) currentTemporal = targetTemporal;
            else if (d.tid() == currentTemporal + 1 && d.tid() <= targetTemporal && d.switchingUp) currentTemporal = d.tid();
        }
        if (currentSpatial != before) spatialSwitches++;
    }

    /**
     * True when the target and the stream's {@code topSpatial} allow a higher spatial layer than the current
     * one: at once, then at most once per {@code everyNanos} while it lasts — time to ask for a keyframe.
     */
    boolean spatialUpWanted(long now, int topSpatial, long everyNanos) {
        if (Math.min(targetSpatial, topSpatial) <= Math.min(currentSpatial, topSpatial)) {
            upWanted = false;
            return false;
        }
        if (upWanted && now - upAskedAt < everyNanos) return false;
        upWanted = true;
        upAskedAt = now;
        return true;
    }

    /**
     * True (at most once per {@code afterNanos}) when the target and the stream's {@code topTemporal} allow a
     * higher temporal layer than the current one and no switching-up picture came for {@code afterNanos}.
     */
    boolean temporalUpStalled(long now, int topTemporal, long afterNanos) {
        if (Math.min(targetTemporal, topTemporal) <= Math.min(currentTemporal, topTemporal)) {
            temporalUpWanted = false;
            return false;
        }
        if (!temporalUpWanted) {
            temporalUpWanted = true;
            temporalUpSince = now;
            return false;
        }
        if (now - temporalUpSince < afterNanos) return false;
        temporalUpSince = now;
        return true;
    }
}
