package dev.parley.sfu.quality;

import java.util.SplittableRandom;

/**
 * A deterministic model of one network path, for tests, benchmarks and the SFU's test-only shaping mode:
 * a bottleneck of {@code capacityBps} with a FIFO drop-tail queue bounded in time, a fixed one-way
 * propagation delay, optional jitter (uniform extra delay that keeps packet order, as on a single path)
 * and independent random loss, all drawn from a seeded generator (same seed, same run).
 *
 * <p>It does not move bytes; it answers "when does this packet arrive, if at all" so the caller can deliver
 * it then (a scheduled send in the SFU, a timestamp in a simulation). Pure computation, no threads, no
 * allocation per packet; not thread-safe (one path = one event loop).
 *
 * <p>Capacity changes apply to packets offered after the change; bytes already queued keep the time they
 * were given, which at millisecond resolution is indistinguishable from a real router's behaviour.
 */
public final class LinkEmulator {

    /** Returned by {@link #send} for a packet that never arrives. */
    public static final long DROPPED = -1;

    private final long propagationDelayMicros;
    private final long maxQueueDelayMicros;
    private final SplittableRandom random;
    private long capacityBps;
    private double lossRate;
    private long jitterMicros;
    private long lastArrivalMicros = Long.MIN_VALUE;
    private long busyUntilMicros = Long.MIN_VALUE;
    private long sentPackets;
    private long queueDrops;
    private long randomLosses;
    private long deliveredBytes;

    /**
     * @param capacityBps            bottleneck rate; {@code <= 0} means unlimited (no queueing)
     * @param propagationDelayMicros one-way delay added to every packet
     * @param maxQueueDelayMicros    a packet that would wait longer than this in the queue is dropped
     * @param lossRate               probability 0..1 that a packet is lost after the queue
     * @param seed                   makes the loss pattern reproducible
     */
    public LinkEmulator(long capacityBps, long propagationDelayMicros, long maxQueueDelayMicros, double lossRate,
                        long seed) {
        if (propagationDelayMicros < 0 || maxQueueDelayMicros < 0) {
            throw new IllegalArgumentException("delays must be >= 0");
        }
        this.propagationDelayMicros = propagationDelayMicros;
        this.maxQueueDelayMicros = maxQueueDelayMicros;
        this.random = new SplittableRandom(seed);
        setCapacityBps(capacityBps);
        setLossRate(lossRate);
    }

    public void setCapacityBps(long bps) {
        this.capacityBps = bps;
    }

    public void setLossRate(double rate) {
        if (rate < 0 || rate > 1 || Double.isNaN(rate)) {
            throw new IllegalArgumentException("loss rate must be within 0..1, got " + rate);
        }
        this.lossRate = rate;
    }

    /** Adds 0..{@code maxMicros} of random delay per packet; arrivals stay in send order. */
    public void setJitterMicros(long maxMicros) {
        if (maxMicros < 0) {
            throw new IllegalArgumentException("jitter must be >= 0");
        }
        this.jitterMicros = maxMicros;
    }

    public long capacityBps() {
        return capacityBps;
    }

    /**
     * Offers a packet to the link at {@code nowMicros} (non-decreasing between calls). Returns its arrival
     * time at the far end, or {@link #DROPPED}.
     */
    public long send(long nowMicros, int sizeBytes) {
        sentPackets++;
        long departure;
        if (capacityBps <= 0) {
            departure = nowMicros;
        } else {
            long start = Math.max(nowMicros, busyUntilMicros);
            if (start - nowMicros > maxQueueDelayMicros) {
                queueDrops++;
                return DROPPED;
            }
            departure = start + sizeBytes * 8L * 1_000_000L / capacityBps;
            busyUntilMicros = departure;
        }
        if (lossRate > 0 && random.nextDouble() < lossRate) {
            randomLosses++;
            return DROPPED;
        }
        deliveredBytes += sizeBytes;
        long arrival = departure + propagationDelayMicros;
        if (jitterMicros > 0) {
            arrival += random.nextLong(jitterMicros + 1);
        }
        arrival = Math.max(arrival, lastArrivalMicros); // one path: no reordering
        lastArrivalMicros = arrival;
        return arrival;
    }

    /** How long a packet offered now would wait in the queue. */
    public long queueDelayMicros(long nowMicros) {
        return busyUntilMicros == Long.MIN_VALUE ? 0 : Math.max(0, busyUntilMicros - nowMicros);
    }

    public long sentPackets() {
        return sentPackets;
    }

    public long queueDrops() {
        return queueDrops;
    }

    public long randomLosses() {
        return randomLosses;
    }

    public long deliveredBytes() {
        return deliveredBytes;
    }
}
