package dev.parley.sfu.quality;

/**
 * Round-trip time toward one subscriber, the RFC 3550 §6.4.1 way: each sender report the SFU sends is
 * remembered (its SSRC, the middle 32 bits of its NTP timestamp, and when it left by this process's monotonic
 * clock); a receiver report block naming that SSRC echoes the NTP bits as LSR together with how long the
 * receiver held it (DLSR, 1/65536 s), so RTT = now − sent − DLSR. Matching on our own send time instead of
 * comparing NTP clocks keeps wall-clock steps out of it, and an LSR we never sent (garbage, a report about an
 * older transport) is ignored rather than turned into a number.
 *
 * <p>Samples are smoothed like TCP's SRTT (gain 1/8, the first sample taken as is): one late report (a
 * receiver's RTCP timer jitter, a GC pause) moves the figure by an eighth, a lasting change shows within a
 * few seconds. Used on the media thread only; no allocation after construction.
 */
public final class RoundTripTime {
    /** Sender reports remembered: one per slot per second, so 64 covers 16 video/audio slots for 4 s. */
    static final int HISTORY = 64;
    /** A sample longer than this is not a round trip but a stale echo. */
    static final long MAX_SAMPLE_NANOS = 10_000_000_000L;
    private static final double GAIN = 1.0 / 8;

    private final int[] ssrcs = new int[HISTORY];
    private final long[] ntpMiddle = new long[HISTORY];
    private final long[] sentNanos = new long[HISTORY];
    private int next, stored;
    private double smoothedMs = -1;
    private int lastSampleMs = -1;
    private long samples;

    /** We sent a sender report for {@code ssrc} with the 64-bit NTP timestamp {@code ntp} at {@code nowNanos}. */
    public void onSenderReportSent(int ssrc, long ntp, long nowNanos) {
        ssrcs[next] = ssrc;
        ntpMiddle[next] = (ntp >>> 16) & 0xFFFFFFFFL;
        sentNanos[next] = nowNanos;
        next = (next + 1) % HISTORY;
        stored = Math.min(HISTORY, stored + 1);
    }

    /**
     * One report block about {@code ssrc} arrived at {@code nowNanos} with {@code lsr} and {@code dlsr} (both
     * unsigned 32-bit, as on the wire). Returns the sample in ms, or -1 when the block gives none (LSR 0: the
     * receiver has no sender report of ours yet; an LSR we don't know; a negative or implausible result).
     */
    public int onReportBlock(int ssrc, long lsr, long dlsr, long nowNanos) {
        lsr &= 0xFFFFFFFFL;
        dlsr &= 0xFFFFFFFFL;
        if (lsr == 0) return -1;
        for (int i = 0; i < stored; i++) {
            int k = Math.floorMod(next - 1 - i, HISTORY);            // newest first
            if (ssrcs[k] != ssrc || ntpMiddle[k] != lsr) continue;
            long rtt = nowNanos - sentNanos[k] - dlsr * 1_000_000_000L / 65536;
            // DLSR has 15 µs resolution, so a loopback round trip can come out a little below zero
            if (rtt < -1_000_000L || rtt > MAX_SAMPLE_NANOS) return -1;
            int ms = (int) Math.max(0, Math.round(rtt / 1e6));
            smoothedMs = smoothedMs < 0 ? ms : smoothedMs + GAIN * (ms - smoothedMs);
            lastSampleMs = ms;
            samples++;
            return ms;
        }
        return -1;
    }

    /** Smoothed RTT in whole ms, -1 before the first sample. */
    public int rttMs() { return smoothedMs < 0 ? -1 : (int) Math.round(smoothedMs); }

    public int lastSampleMs() { return lastSampleMs; }

    public long samples() { return samples; }

    /** A new subscribe transport is a new path: nothing carries over. */
    public void reset() {
        next = 0;
        stored = 0;
        smoothedMs = -1;
        lastSampleMs = -1;
        samples = 0;
    }

    /**
     * Feeds every report block of one RTCP SR (PT 200) or RR (PT 201) packet at {@code o} (length {@code blen}
     * bytes, header already validated by the caller) to {@link #onReportBlock}. Blocks beyond the packet's
     * length are not read, whatever its count field says. Returns how many blocks were read.
     */
    public int onReportPacket(byte[] b, int o, int blen, long nowNanos) {
        int type = b[o + 1] & 0xFF;
        int first = type == 200 ? 28 : type == 201 ? 8 : -1;
        if (first < 0 || blen < first) return 0;
        int count = Math.min(b[o] & 0x1F, (blen - first) / 24);
        for (int i = 0; i < count; i++) {
            int at = o + first + 24 * i;
            onReportBlock(readInt(b, at), readInt(b, at + 16) & 0xFFFFFFFFL, readInt(b, at + 20) & 0xFFFFFFFFL, nowNanos);
        }
        return count;
    }

    private static int readInt(byte[] b, int at) {
        return ((b[at] & 0xFF) << 24) | ((b[at + 1] & 0xFF) << 16) | ((b[at + 2] & 0xFF) << 8) | (b[at + 3] & 0xFF);
    }
}
