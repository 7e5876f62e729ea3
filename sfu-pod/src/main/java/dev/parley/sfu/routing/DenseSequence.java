package dev.parley.sfu.routing;

import dev.parley.media.rtp.RtpPacket;

import java.util.Arrays;

/**
 * Keeps the outgoing sequence numbers of a layer-filtered stream dense: every dropped packet takes one off the
 * numbers after it, so the receiver sees no hole to NACK. A ring as deep as the slot's NACK cache remembers each
 * recent input number's shift (or that it was dropped), so a late or repaired packet gets the number its position
 * earned; a number a gap reserved whose packet turns out to be dropped becomes a padding fill ({@link #FILL}).
 * Shared by the VP8 temporal filter and the VP9 SVC filter, which decide only whether a packet's layer is forwarded.
 *
 * <p>Media thread only; allocates nothing.
 */
final class DenseSequence {
    /** {@link #admit} results. */
    static final int DROP = 0, FORWARD = 1, FILL = 2;
    private static final int RING = 512;
    private static final int DROPPED = -1;
    /** Marks an entry reserved for a packet not seen yet (its fate is decided when it comes). */
    private static final int RESERVED = 1 << 30;

    /** Set by a {@link #FORWARD}ing or {@link #FILL}ing {@link #admit}: subtract from the packet's sequence number. */
    int shift;
    /** Packets dropped (new ones the filter refused, and late ones turned into fills). */
    long dropped;

    private boolean init;
    private int highest, drops;
    private final int[] tag = new int[RING];        // seq + 1 the entry is for; 0 = none
    private final int[] shiftAt = new int[RING];    // its shift, or DROPPED (RESERVED: not seen yet)

    /** A new input number space starts at the next packet. */
    void reset() {
        init = false;
        drops = 0;
        Arrays.fill(tag, 0);
    }

    /** How far {@code seq} is ahead of the highest input number seen (> 0: a new packet); the first call starts the space. */
    int delta(int seq) {
        if (!init) {
            init = true;
            highest = (seq - 1) & 0xFFFF;
        }
        return RtpPacket.seqDelta(seq, highest);
    }

    /**
     * The fate of packet {@code seq} ({@code delta} from {@link #delta}) whose layer the filter would {@code forward}
     * now: {@link #FORWARD} (with {@link #shift} set), {@link #DROP}, or {@link #FILL} (dropped, but the receiver must
     * get a padding packet numbered {@code seq - shift}).
     */
    int admit(int seq, int delta, boolean forward) {
        if (delta > 0) {
            for (int i = Math.max(1, delta - RING); i < delta; i++) put((highest + i) & 0xFFFF, drops | RESERVED);   // a gap
            highest = seq;
            if (!forward) {
                put(seq, DROPPED);
                drops++;
                dropped++;
                return DROP;
            }
            put(seq, drops);
            shift = drops;
            return FORWARD;
        }
        int i = seq & (RING - 1);
        if (-delta >= RING || tag[i] != seq + 1 || shiftAt[i] == DROPPED) return DROP;
        int at = shiftAt[i];
        shift = at & ~RESERVED;
        if (forward) {
            shiftAt[i] = shift;
            return FORWARD;
        }
        if ((at & RESERVED) == 0) return DROP;
        shiftAt[i] = DROPPED;                                  // its number is used up by the fill
        dropped++;
        return FILL;
    }

    private void put(int seq, int s) {
        int i = seq & (RING - 1);
        tag[i] = seq + 1;
        shiftAt[i] = s;
    }
}
