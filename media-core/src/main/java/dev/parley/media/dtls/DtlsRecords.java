package dev.parley.media.dtls;

/**
 * Cheap structural check of a datagram of DTLS records (RFC 6347 §4.1) before it is queued for the handshake
 * thread: every record needs a known content type, a DTLS version and a length that fits.
 */
public final class DtlsRecords {
    public static final int HEADER = 13;

    private DtlsRecords() {}

    /** Number of records, or -1 if the datagram is not well-formed DTLS. */
    public static int count(byte[] b, int off, int len) {
        int p = off, end = off + len, n = 0;
        while (p < end) {
            if (end - p < HEADER) return -1;
            int type = b[p] & 0xFF;
            if (type < 20 || type > 25) return -1;
            if ((b[p + 1] & 0xFF) != 0xFE) return -1;           // DTLS 1.x major version 254
            int l = ((b[p + 11] & 0xFF) << 8) | (b[p + 12] & 0xFF);
            if (l > 16384 + 2048 || p + HEADER + l > end) return -1;
            p += HEADER + l;
            n++;
        }
        return n == 0 ? -1 : n;
    }
}
