package dev.parley.sfu.bwe;

/**
 * Turns the feedback of a probe cluster into a capacity sample: the send rate and receive rate of the
 * cluster's packets; the lower one is what the path carried. When the receiver got it clearly slower
 * than we sent it, the path is saturated and we take a bit under the receive rate. A fixed set of slots
 * (clusters are short and few) keeps it allocation-free.
 */
final class ProbeResultEstimator {

    private static final int SLOTS = 8;
    private static final double MIN_RECEIVED_SHARE = 0.8;
    private static final double MAX_VALID_RATIO = 2.0;
    private static final double SATURATION_RATIO = 0.9;
    private static final long MAX_SEND_INTERVAL_MICROS = 1_000_000;

    private final int[] id = new int[SLOTS];
    private final int[] minPackets = new int[SLOTS];
    private final int[] minBytes = new int[SLOTS];
    private final int[] packets = new int[SLOTS];
    private final long[] bytes = new long[SLOTS];
    private final long[] firstSend = new long[SLOTS];
    private final long[] lastSend = new long[SLOTS];
    private final int[] lastSendSize = new int[SLOTS];
    private final long[] firstArrival = new long[SLOTS];
    private final int[] firstArrivalSize = new int[SLOTS];
    private final long[] lastArrival = new long[SLOTS];
    private final boolean[] done = new boolean[SLOTS];

    ProbeResultEstimator() {
        java.util.Arrays.fill(id, -1);
    }

    void onClusterStarted(ProbeClusterRequest request) {
        int s = Math.floorMod(request.id(), SLOTS);
        id[s] = request.id();
        minPackets[s] = request.minPackets();
        minBytes[s] = request.minBytes();
        packets[s] = 0;
        bytes[s] = 0;
        done[s] = false;
    }

    /**
     * Adds one received probe packet; returns the probe's bitrate estimate when this packet completed a
     * valid measurement, else -1 (each cluster yields at most one result).
     */
    long onProbePacket(int clusterId, long sendMicros, long arrivalMicros, int size) {
        int s = Math.floorMod(clusterId, SLOTS);
        if (id[s] != clusterId || done[s]) {
            return -1;
        }
        if (packets[s] == 0) {
            firstSend[s] = sendMicros;
            lastSend[s] = sendMicros;
            lastSendSize[s] = size;
            firstArrival[s] = arrivalMicros;
            firstArrivalSize[s] = size;
            lastArrival[s] = arrivalMicros;
        } else {
            if (sendMicros < firstSend[s]) {
                firstSend[s] = sendMicros;
            }
            if (sendMicros >= lastSend[s]) {
                lastSend[s] = sendMicros;
                lastSendSize[s] = size;
            }
            if (arrivalMicros < firstArrival[s]) {
                firstArrival[s] = arrivalMicros;
                firstArrivalSize[s] = size;
            }
            lastArrival[s] = Math.max(lastArrival[s], arrivalMicros);
        }
        packets[s]++;
        bytes[s] += size;
        if (packets[s] < MIN_RECEIVED_SHARE * minPackets[s] || bytes[s] < MIN_RECEIVED_SHARE * minBytes[s]) {
            return -1;
        }
        long sendInterval = lastSend[s] - firstSend[s];
        long recvInterval = lastArrival[s] - firstArrival[s];
        if (sendInterval <= 0 || recvInterval <= 0 || sendInterval > MAX_SEND_INTERVAL_MICROS) {
            return -1;
        }
        // the last packet's bytes leave after the send interval ends; the first's arrive before the receive one
        double sendBps = (bytes[s] - lastSendSize[s]) * 8e6 / sendInterval;
        double recvBps = (bytes[s] - firstArrivalSize[s]) * 8e6 / recvInterval;
        if (recvBps / sendBps > MAX_VALID_RATIO) {
            return -1; // received much faster than sent: timestamps are off, don't trust it
        }
        done[s] = true;
        double result = Math.min(sendBps, recvBps);
        if (recvBps < SATURATION_RATIO * sendBps) {
            result = 0.95 * recvBps;
        }
        return (long) result;
    }
}
