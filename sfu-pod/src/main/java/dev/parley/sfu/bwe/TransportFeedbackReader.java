package dev.parley.sfu.bwe;

/**
 * Parses one transport-wide congestion control feedback message (RTCP RTPFB, FMT 15,
 * draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1) straight into a {@link FeedbackSink} (the
 * {@link SendSideBandwidthEstimator}): no intermediate list, no allocation.
 *
 * <p>The message is validated completely (chunks cover the status count, every delta the chunks announce
 * is present) before the first entry is applied, so a truncated or lying packet changes nothing: it is
 * counted in {@link #malformed()} and {@link #read} returns -1. The caller logs it rate-limited.
 *
 * <p>The 24-bit reference time (64 ms units) wraps every ~12 days and is unwrapped against the previous
 * message, so arrival times on the receiver clock are continuous. One reader per subscriber transport.
 */
public final class TransportFeedbackReader {

    private static final int HEADER = 12;         // RTCP header + sender SSRC + media SSRC
    private static final int FCI_FIXED = 8;       // base seq, status count, reference time, fb count
    private static final long REF_UNIT_MICROS = 64_000;
    private static final long DELTA_UNIT_MICROS = 250;
    private static final int REF_MOD = 1 << 24;

    private long lastRefRaw = -1;
    private long refUnwrapped;
    private long malformed;

    /**
     * Reads the feedback block at {@code off} ({@code len} = the block's length from its RTCP header) and
     * feeds every entry to {@code bwe} inside onFeedbackStart/onFeedbackEnd. Returns the number of entries,
     * or -1 if the block is malformed (then nothing was applied).
     */
    public int read(byte[] b, int off, int len, FeedbackSink bwe, long nowMicros) {
        if (off < 0 || len < HEADER + FCI_FIXED || off + len > b.length || (b[off + 1] & 0xFF) != 205
                || (b[off] & 0x1F) != 15) {
            malformed++;
            return -1;
        }
        int p = off + HEADER;
        int end = off + len;
        int baseSeq = u16(b, p);
        int count = u16(b, p + 2);
        long refRaw = ((b[p + 4] & 0xFFL) << 16) | ((b[p + 5] & 0xFFL) << 8) | (b[p + 6] & 0xFFL);
        int chunks = p + FCI_FIXED;
        int deltaStart = validate(b, chunks, end, count);
        if (deltaStart < 0) {
            malformed++;
            return -1;
        }
        long arrival = unwrapReference(refRaw) * REF_UNIT_MICROS;
        bwe.onFeedbackStart(nowMicros);
        int seq = baseSeq;
        int done = 0;
        int c = chunks;
        int d = deltaStart;
        while (done < count) {
            int chunk = u16(b, c);
            c += 2;
            if ((chunk & 0x8000) == 0) { // run length: one symbol repeated
                int symbol = (chunk >>> 13) & 0x3;
                int run = Math.min(chunk & 0x1FFF, count - done);
                for (int i = 0; i < run; i++) {
                    if (symbol == 0) {
                        bwe.onPacketFeedback(seq, false, 0);
                    } else {
                        arrival += delta(b, d, symbol);
                        d += symbol;
                        bwe.onPacketFeedback(seq, true, arrival);
                    }
                    seq = (seq + 1) & 0xFFFF;
                }
                done += run;
            } else {
                boolean twoBit = (chunk & 0x4000) != 0;
                int symbols = twoBit ? 7 : 14;
                for (int i = 0; i < symbols && done < count; i++) {
                    int symbol = twoBit ? (chunk >>> (12 - 2 * i)) & 0x3 : (chunk >>> (13 - i)) & 0x1;
                    if (symbol == 0) {
                        bwe.onPacketFeedback(seq, false, 0);
                    } else {
                        arrival += delta(b, d, symbol);
                        d += symbol;
                        bwe.onPacketFeedback(seq, true, arrival);
                    }
                    seq = (seq + 1) & 0xFFFF;
                    done++;
                }
            }
        }
        bwe.onFeedbackEnd(nowMicros);
        return count;
    }

    /** Malformed feedback blocks seen (for the drop counter). */
    public long malformed() {
        return malformed;
    }

    /** Walks chunks and delta sizes without applying anything; returns where deltas start, or -1. */
    private static int validate(byte[] b, int chunks, int end, int count) {
        int c = chunks;
        int done = 0;
        int deltaBytes = 0;
        while (done < count) {
            if (c + 2 > end) {
                return -1;
            }
            int chunk = u16(b, c);
            c += 2;
            if ((chunk & 0x8000) == 0) {
                int symbol = (chunk >>> 13) & 0x3;
                int run = Math.min(chunk & 0x1FFF, count - done);
                if (symbol == 3 || run == 0) {
                    return -1; // reserved symbol, or a chunk that makes no progress
                }
                deltaBytes += symbol * run;
                done += run;
            } else {
                boolean twoBit = (chunk & 0x4000) != 0;
                int symbols = twoBit ? 7 : 14;
                for (int i = 0; i < symbols && done < count; i++) {
                    int symbol = twoBit ? (chunk >>> (12 - 2 * i)) & 0x3 : (chunk >>> (13 - i)) & 0x1;
                    if (symbol == 3) {
                        return -1;
                    }
                    deltaBytes += symbol;
                    done++;
                }
            }
        }
        return c + deltaBytes <= end ? c : -1;
    }

    private static long delta(byte[] b, int d, int symbol) {
        return symbol == 1 ? (b[d] & 0xFF) * DELTA_UNIT_MICROS : (short) u16(b, d) * DELTA_UNIT_MICROS;
    }

    private long unwrapReference(long raw) {
        if (lastRefRaw < 0) {
            refUnwrapped = raw;
        } else {
            long diff = (raw - lastRefRaw) & (REF_MOD - 1);
            if (diff >= REF_MOD / 2) {
                diff -= REF_MOD; // a reordered older feedback
            }
            refUnwrapped += diff;
        }
        lastRefRaw = raw;
        return refUnwrapped;
    }

    private static int u16(byte[] b, int o) {
        return ((b[o] & 0xFF) << 8) | (b[o + 1] & 0xFF);
    }
}
