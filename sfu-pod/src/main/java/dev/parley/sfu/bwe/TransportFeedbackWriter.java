package dev.parley.sfu.bwe;

/**
 * Writes a transport-cc feedback message (RTCP RTPFB FMT 15). The SFU sends these to publishers so the
 * browser's own send-side estimator can adapt its uplink; tests use it to produce feedback for the reader.
 *
 * <p>Encoding: two-bit status vector chunks (7 statuses each), which can express every status including
 * large/negative deltas; simple and never longer than twice the optimal run-length encoding for the
 * feedback sizes that occur (tens of packets).
 */
public final class TransportFeedbackWriter {

    private static final long DELTA_UNIT_MICROS = 250;
    private static final long REF_UNIT_MICROS = 64_000;

    private TransportFeedbackWriter() {
    }

    /**
     * Writes feedback for {@code count} consecutive sequence numbers from {@code baseSeq};
     * {@code arrivalMicros[i]} is the arrival time of packet i or -1 if not received. Returns the bytes
     * written (a multiple of 4), or -1 when the buffer is too small or a delta does not fit 16 bits.
     */
    public static int write(byte[] b, int off, int senderSsrc, int mediaSsrc, int baseSeq, long[] arrivalMicros,
                            int count, int feedbackCount) {
        long firstArrival = -1;
        for (int i = 0; i < count; i++) {
            if (arrivalMicros[i] >= 0) {
                firstArrival = arrivalMicros[i];
                break;
            }
        }
        if (firstArrival < 0 || count > 0xFFFF) {
            return -1; // feedback must report at least one received packet
        }
        long ref = firstArrival / REF_UNIT_MICROS;
        int chunkCount = (count + 6) / 7;
        int p = off + 20;
        int deltas = p + 2 * chunkCount;
        if (deltas > b.length) {
            return -1;
        }
        long prev = ref * REF_UNIT_MICROS;
        int d = deltas;
        for (int c = 0; c < chunkCount; c++) {
            int chunk = 0xC000;
            for (int i = 0; i < 7; i++) {
                int idx = c * 7 + i;
                int symbol = 0;
                if (idx < count && arrivalMicros[idx] >= 0) {
                    long delta = (arrivalMicros[idx] - prev) / DELTA_UNIT_MICROS;
                    if (delta >= 0 && delta <= 255) {
                        symbol = 1;
                        if (d + 1 > b.length) {
                            return -1;
                        }
                        b[d++] = (byte) delta;
                    } else if (delta >= Short.MIN_VALUE && delta <= Short.MAX_VALUE) {
                        symbol = 2;
                        if (d + 2 > b.length) {
                            return -1;
                        }
                        b[d++] = (byte) (delta >> 8);
                        b[d++] = (byte) delta;
                    } else {
                        return -1;
                    }
                    prev += delta * DELTA_UNIT_MICROS; // quantized, as the receiver will reconstruct it
                }
                chunk |= symbol << (12 - 2 * i);
            }
            b[p++] = (byte) (chunk >> 8);
            b[p++] = (byte) chunk;
        }
        while ((d - off) % 4 != 0) {
            if (d >= b.length) {
                return -1;
            }
            b[d++] = 0;
        }
        int len = d - off;
        b[off] = (byte) 0x8F;           // V=2, no padding bit (we pad with zero delta bytes), FMT=15
        b[off + 1] = (byte) 205;
        b[off + 2] = (byte) ((len / 4 - 1) >> 8);
        b[off + 3] = (byte) (len / 4 - 1);
        putInt(b, off + 4, senderSsrc);
        putInt(b, off + 8, mediaSsrc);
        b[off + 12] = (byte) (baseSeq >> 8);
        b[off + 13] = (byte) baseSeq;
        b[off + 14] = (byte) (count >> 8);
        b[off + 15] = (byte) count;
        b[off + 16] = (byte) (ref >> 16);
        b[off + 17] = (byte) (ref >> 8);
        b[off + 18] = (byte) ref;
        b[off + 19] = (byte) feedbackCount;
        return len;
    }

    private static void putInt(byte[] b, int o, int v) {
        b[o] = (byte) (v >>> 24);
        b[o + 1] = (byte) (v >>> 16);
        b[o + 2] = (byte) (v >>> 8);
        b[o + 3] = (byte) v;
    }
}
