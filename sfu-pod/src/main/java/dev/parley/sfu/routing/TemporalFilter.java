package dev.parley.sfu.routing;

import dev.parley.media.codec.Vp8Descriptor;

import java.util.Arrays;

/**
 * One video slot's VP8 temporal-layer filter (docs/bwe.md §2): forwards the pictures whose TID is at most
 * {@link #current} and keeps what the receiver sees dense, so a dropped layer never looks like loss — each
 * dropped packet takes one off the outgoing sequence numbers after it ({@link #seqShift}), each dropped picture
 * one off the picture ids ({@link #pidShift}). TL0PICIDX needs nothing: base-layer pictures are never dropped.
 *
 * <p>{@link #current} follows {@link #target} only where the receiver can decode: down at any new picture (a
 * lower layer never references a higher one); up at a keyframe, or one layer at a time at a layer-sync (Y)
 * picture of the next layer (it references base-layer pictures only). libwebrtc sets Y on every cycle's first
 * TL2 picture but on TL1 only after a keyframe, so T0 → T1 usually waits for a keyframe
 * ({@link #upswitchStalled} tells the allocation to ask for one).
 *
 * <p>Late packets (reordered, or a publisher's repair) get the numbers in effect when their place in the
 * sequence was passed: a gap reserves the shift of its time. A late packet of a dropped picture whose number was
 * reserved is answered with {@link #FILL}: the caller sends a padding-only packet with that number, which the
 * receiver takes as "nothing here" (libwebrtc counts it as an empty packet, not a loss). One too old for the
 * rings is dropped (its reserved number stays a hole, as if lost upstream).
 *
 * <p>Media thread only; {@link #admit} allocates nothing.
 */
final class TemporalFilter {
    /** {@link #admit} results. */
    static final int DROP = DenseSequence.DROP, FORWARD = DenseSequence.FORWARD, FILL = DenseSequence.FILL;
    /** Target meaning "every temporal layer" (VP8's TID has 2 bits). */
    static final int ALL = 3;
    private static final int PIC_RING = 128;          // ≈ 4 s of pictures at 30 fps
    private static final int DROPPED = -1;
    /** Marks a ring entry reserved for a packet / picture not seen yet (its fate is decided when it comes). */
    private static final int RESERVED = 1 << 30;

    /** Highest TID the allocator wants forwarded. */
    int target = ALL;
    /** Highest TID forwarded now. */
    int current = ALL;
    /** Set by a successful {@link #admit}: subtract from the packet's sequence number and picture id. */
    int seqShift, pidShift;
    long droppedPictures;
    /** {@link #current} is below what the target and stream allow, since {@link #upWantedSince} (System.nanoTime). */
    private boolean upWanted;
    private long upWantedSince;

    private final DenseSequence seqs = new DenseSequence();

    private boolean picInit;
    private int highestPid, pidBits, pidDrops;
    private final int[] picTag = new int[PIC_RING];
    private final int[] pidShiftAt = new int[PIC_RING];

    /** A new input number space starts at the next packet (layer or track switch, at a keyframe). */
    void reset() {
        seqs.reset();
        picInit = false;
        pidDrops = 0;
        current = target;
        Arrays.fill(picTag, 0);
    }

    /**
     * Decides the fate of the packet with input sequence number {@code seq}: {@link #FORWARD} (with
     * {@link #seqShift} and {@link #pidShift} set), {@link #DROP}, or {@link #FILL} (dropped, but the receiver
     * must get a padding packet with sequence number {@code seq - seqShift}). {@code vp8} is null for codecs
     * without a parsed descriptor.
     */
    int admit(int seq, Vp8Descriptor vp8, boolean keyframe) {
        boolean forward = picture(vp8, keyframe);
        int fate = seqs.admit(seq, seqs.delta(seq), forward);
        seqShift = seqs.shift;
        return fate;
    }

    /** Packets this filter dropped (or turned into padding fills). */
    long droppedPackets() {
        return seqs.dropped;
    }

    /** The picture-level decision; sets {@link #pidShift}. */
    private boolean picture(Vp8Descriptor vp8, boolean keyframe) {
        pidShift = 0;
        if (vp8 == null) return true;
        int tid = vp8.temporalId, bits = vp8.pictureIdBits;
        if (bits == 0) {                                   // no picture ids: decide at each picture's first packet
            if (tid < 0) return true;
            if (vp8.startOfPartition && vp8.partitionId == 0) follow(tid, vp8.layerSync, keyframe);
            return tid <= current;
        }
        int pid = vp8.pictureId, mask = bits == 15 ? 0x7FFF : 0x7F, sh = 32 - bits;
        if (!picInit || bits != pidBits) {
            picInit = true;
            pidBits = bits;
            highestPid = (pid - 1) & mask;
        }
        int d = ((pid - highestPid) << sh) >> sh;
        int i = pid & (PIC_RING - 1);
        if (d > 0) {
            for (int k = Math.max(1, d - PIC_RING); k < d; k++) {   // pictures never seen: reserved
                int j = (highestPid + k) & (PIC_RING - 1);
                picTag[j] = ((highestPid + k) & mask) + 1;
                pidShiftAt[j] = pidDrops | RESERVED;
            }
            highestPid = pid;
            boolean forward = tid < 0 || follow(tid, vp8.layerSync, keyframe);
            picTag[i] = pid + 1;
            if (!forward) {
                pidShiftAt[i] = DROPPED;
                pidDrops++;
                droppedPictures++;
                return false;
            }
            pidShiftAt[i] = pidDrops;
            pidShift = pidDrops;
            return true;
        }
        if (-d >= PIC_RING || picTag[i] != pid + 1 || pidShiftAt[i] == DROPPED) return false;
        int at = pidShiftAt[i];
        if ((at & RESERVED) != 0 && tid > current) return false;  // a late picture of a layer not forwarded now
        pidShift = at & ~RESERVED;
        return true;
    }

    /** Moves {@link #current} towards the target where decodable; true if a picture of layer {@code tid} is forwarded. */
    private boolean follow(int tid, boolean layerSync, boolean keyframe) {
        if (keyframe) current = target;                       // a keyframe refreshes every reference
        else if (target < current) current = target;          // down: nothing below references the dropped layers
        else if (tid == current + 1 && tid <= target && layerSync) current = tid;
        return tid <= current;
    }

    /**
     * True (at most once per {@code afterNanos}) when the target and the stream's {@code topTid} allow a higher
     * layer than {@link #current} and no sync picture has come for {@code afterNanos}: time to ask for a keyframe.
     */
    boolean upswitchStalled(long now, int topTid, long afterNanos) {
        if (current >= Math.min(target, topTid)) {
            upWanted = false;
            return false;
        }
        if (!upWanted) {
            upWanted = true;
            upWantedSince = now;
            return false;
        }
        if (now - upWantedSince < afterNanos) return false;
        upWantedSince = now;
        return true;
    }
}
