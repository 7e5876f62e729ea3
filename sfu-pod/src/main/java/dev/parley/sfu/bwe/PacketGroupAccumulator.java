package dev.parley.sfu.bwe;

/**
 * Groups acknowledged packets into send bursts (packets sent within 5 ms of the group's first packet,
 * GCC section 5.2) and, each time a group completes, produces the inter-group delay variation inputs:
 * the send-time delta and the arrival-time delta between the last two complete groups.
 *
 * <p>Grouping matters because a pacer or a frame's packets leave back to back; per-packet deltas would
 * be dominated by serialization noise rather than queueing. Packets that arrive in a burst after a
 * transient stall (arrival delta under 5 ms while their propagation delta is negative) are merged into
 * the current group, as the draft recommends, so a Wi-Fi aggregation burst does not read as underuse.
 *
 * <p>The result of {@link #add} is exposed through fields of this object rather than a new value per
 * group, so the hot feedback path allocates nothing.
 */
final class PacketGroupAccumulator {

    private static final long GROUP_SPAN_MICROS = 5_000;
    private static final long BURST_ARRIVAL_MICROS = 5_000;
    private static final long MAX_BURST_MICROS = 100_000;
    /** A gap this long between groups means the stream stopped; deltas across it mean nothing. */
    private static final long RESET_GAP_MICROS = 3_000_000;

    // group being filled
    private long curFirstSend = Long.MIN_VALUE;
    private long curLastSend;
    private long curFirstArrival;
    private long curLastArrival;
    private long curBytes;
    // last complete group
    private boolean havePrev;
    private long prevLastSend;
    private long prevLastArrival;
    private long prevBytes;

    /** Valid after {@link #add} returned true. */
    long sendDeltaMicros;
    long arrivalDeltaMicros;
    long sizeDeltaBytes;
    /** Arrival time of the group that just completed (the x axis of the trendline). */
    long groupArrivalMicros;

    /**
     * Adds one received packet (in feedback order). Returns true when a group completed and the delta
     * fields hold a fresh sample.
     */
    boolean add(long sendMicros, long arrivalMicros, int sizeBytes) {
        if (curFirstSend == Long.MIN_VALUE) {
            startGroup(sendMicros, arrivalMicros, sizeBytes);
            return false;
        }
        if (sendMicros < curFirstSend) {
            return false; // reordered behind the current group: its timing would corrupt the deltas
        }
        if (!startsNewGroup(sendMicros, arrivalMicros)) {
            curLastSend = Math.max(curLastSend, sendMicros);
            curLastArrival = Math.max(curLastArrival, arrivalMicros);
            curBytes += sizeBytes;
            return false;
        }
        boolean produced = false;
        if (havePrev) {
            long arrivalDelta = curLastArrival - prevLastArrival;
            if (arrivalDelta < 0 || arrivalDelta > RESET_GAP_MICROS) {
                havePrev = false; // clock jump or long pause: start over rather than emit garbage
            } else {
                sendDeltaMicros = curLastSend - prevLastSend;
                arrivalDeltaMicros = arrivalDelta;
                sizeDeltaBytes = curBytes - prevBytes;
                groupArrivalMicros = curLastArrival;
                produced = true;
            }
        }
        havePrev = true;
        prevLastSend = curLastSend;
        prevLastArrival = curLastArrival;
        prevBytes = curBytes;
        startGroup(sendMicros, arrivalMicros, sizeBytes);
        return produced;
    }

    private boolean startsNewGroup(long sendMicros, long arrivalMicros) {
        if (belongsToBurst(sendMicros, arrivalMicros)) {
            return false;
        }
        return sendMicros - curFirstSend > GROUP_SPAN_MICROS;
    }

    private boolean belongsToBurst(long sendMicros, long arrivalMicros) {
        long arrivalDelta = arrivalMicros - curLastArrival;
        long sendDelta = sendMicros - curLastSend;
        if (sendDelta == 0) {
            return true;
        }
        long propagationDelta = arrivalDelta - sendDelta;
        return propagationDelta < 0 && arrivalDelta <= BURST_ARRIVAL_MICROS
                && arrivalMicros - curFirstArrival < MAX_BURST_MICROS;
    }

    private void startGroup(long sendMicros, long arrivalMicros, int sizeBytes) {
        curFirstSend = sendMicros;
        curLastSend = sendMicros;
        curFirstArrival = arrivalMicros;
        curLastArrival = arrivalMicros;
        curBytes = sizeBytes;
    }
}
