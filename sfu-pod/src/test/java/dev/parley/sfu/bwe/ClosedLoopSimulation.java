package dev.parley.sfu.bwe;

import dev.parley.sfu.quality.LinkEmulator;

import java.util.ArrayList;
import java.util.List;

/**
 * A sender, a {@link LinkEmulator} and a transport-cc receiver in simulated time (1 ms steps), closed
 * around a real {@link SendSideBandwidthEstimator} fed through the real wire format
 * ({@link TransportFeedbackWriter} → {@link TransportFeedbackReader}): what the sender sends depends on the estimate, what the
 * estimate becomes depends on what the link did to those packets. Deterministic for a given seed.
 */
final class ClosedLoopSimulation {

    /** Decides the media rate from the current estimate (an encoder, or an SFU allocator). */
    interface SendPolicy {
        /** Video/media bitrate to send now, given the estimate. */
        long mediaBps(long nowMicros, long estimateBps);

        /** What the sender would send with unlimited bandwidth (for probing); 0 = unknown. */
        default long desiredBps() {
            return 0;
        }
    }

    record Sample(long timeMs, long estimateBps, long capacityBps, long mediaBps, BandwidthUsage usage) {
    }

    static final int MEDIA_PACKET = 1200;
    static final int AUDIO_PACKET = 100; // ~40 kbps with 50 packets/s
    static final long FEEDBACK_INTERVAL_MICROS = 50_000;
    static final long TICK_INTERVAL_MICROS = 25_000;
    static final long REVERSE_DELAY_MICROS = 20_000;

    final SendSideBandwidthEstimator estimator;
    final LinkEmulator link;
    private final SendPolicy policy;
    private final boolean audio;
    private final int maxPackets = 1 << 20;
    private final long[] arrival = new long[maxPackets];
    private int sent;        // packets sent (index = unwrapped transport seq)
    private int nextReport;  // first packet not yet reported in feedback
    private long nowMicros;
    private double mediaBudgetBits;
    private long currentMediaBps;
    private final ProbePacer pacer;
    private final byte[] wire = new byte[64 * 1024];
    private final TransportFeedbackReader feedbackReader = new TransportFeedbackReader();
    private int feedbackCount;
    private final java.util.ArrayDeque<PendingFeedback> inFlightFeedback = new java.util.ArrayDeque<>();

    private record PendingFeedback(long deliverAtMicros, byte[] bytes, int entries) {
    }
    final List<Sample> samples = new ArrayList<>();
    long probesSent;
    long audioSent;
    long audioLost;

    ClosedLoopSimulation(BweConfig config, LinkEmulator link, SendPolicy policy, boolean audio) {
        this.estimator = new SendSideBandwidthEstimator(config);
        this.pacer = new ProbePacer(estimator);
        this.link = link;
        this.policy = policy;
        this.audio = audio;
    }

    long nowMs() {
        return nowMicros / 1000;
    }

    /** Advances the simulation by {@code ms} milliseconds. */
    void run(long ms) {
        long end = nowMicros + ms * 1000;
        while (nowMicros < end) {
            step();
            nowMicros += 1000;
        }
    }

    private void step() {
        long estimate = estimator.estimateBps();
        estimator.setDesiredBitrate(policy.desiredBps());
        currentMediaBps = policy.mediaBps(nowMicros, estimate);
        if (audio && nowMicros % 20_000 == 0) {
            audioSent++;
            if (send(AUDIO_PACKET) == LinkEmulator.DROPPED) {
                audioLost++;
            }
        }
        mediaBudgetBits += currentMediaBps / 1000.0;
        mediaBudgetBits = Math.min(mediaBudgetBits, 8.0 * MEDIA_PACKET * 4); // pacer: no long bursts
        while (mediaBudgetBits >= 8 * MEDIA_PACKET) {
            mediaBudgetBits -= 8 * MEDIA_PACKET;
            send(MEDIA_PACKET);
        }
        sendProbe();
        if (nowMicros % TICK_INTERVAL_MICROS == 0) {
            estimator.onTick(nowMicros);
        }
        if (nowMicros % FEEDBACK_INTERVAL_MICROS == 0) {
            generateFeedback();
        }
        while (!inFlightFeedback.isEmpty() && inFlightFeedback.peek().deliverAtMicros() <= nowMicros) {
            PendingFeedback f = inFlightFeedback.poll();
            if (feedbackReader.read(f.bytes(), 0, f.bytes().length, estimator, nowMicros) != f.entries()) {
                throw new IllegalStateException("feedback did not round-trip");
            }
        }
        if (nowMicros % 100_000 == 0) {
            samples.add(new Sample(nowMs(), estimator.estimateBps(), link.capacityBps(), currentMediaBps,
                    estimator.stats(nowMicros).usage()));
        }
    }

    /** Tops the running probe cluster up with filler, the way the SFU's timer does. */
    private void sendProbe() {
        boolean wasProbing = pacer.probing();
        int due;
        while ((due = pacer.fillerBytesDue(nowMicros + 1000)) > 0) { // bytes due by the end of this 1 ms step
            send(Math.min(due, pacer.fillerPacketSize()) < 200 ? 200 : pacer.fillerPacketSize());
        }
        if (!wasProbing && pacer.probing()) {
            probesSent++;
        }
    }

    private long send(int size) {
        int seq = sent++;
        pacer.onPacketSent(seq & 0xFFFF, nowMicros, size);
        arrival[seq] = link.send(nowMicros, size);
        return arrival[seq];
    }

    /** A transport-cc report of everything that arrived by now, with gaps before the last arrival as lost. */
    private void generateFeedback() {
        int last = -1;
        for (int i = nextReport; i < sent; i++) {
            if (arrival[i] != LinkEmulator.DROPPED && arrival[i] <= nowMicros) {
                last = i;
            } else if (arrival[i] != LinkEmulator.DROPPED) {
                break; // FIFO link: nothing after a packet still in flight has arrived either
            }
        }
        if (last < 0) {
            return;
        }
        // through the wire format, as the SFU will receive it
        int count = last - nextReport + 1;
        long[] arrivals = new long[count];
        for (int i = 0; i < count; i++) {
            long a = arrival[nextReport + i];
            arrivals[i] = a == LinkEmulator.DROPPED ? -1 : a;
        }
        int len = TransportFeedbackWriter.write(wire, 0, 1, 2, nextReport & 0xFFFF, arrivals, count, feedbackCount++);
        if (len < 0) {
            throw new IllegalStateException("feedback did not fit");
        }
        // the report travels back over an uncongested reverse path
        inFlightFeedback.add(new PendingFeedback(nowMicros + REVERSE_DELAY_MICROS, java.util.Arrays.copyOf(wire, len), count));
        nextReport = last + 1;
    }

    /** Mean estimate over samples with {@code fromMs <= t < toMs}. */
    double meanEstimate(long fromMs, long toMs) {
        return samples.stream().filter(s -> s.timeMs() >= fromMs && s.timeMs() < toMs)
                .mapToLong(Sample::estimateBps).average().orElseThrow();
    }

    long minEstimate(long fromMs, long toMs) {
        return samples.stream().filter(s -> s.timeMs() >= fromMs && s.timeMs() < toMs)
                .mapToLong(Sample::estimateBps).min().orElseThrow();
    }

    long maxEstimate(long fromMs, long toMs) {
        return samples.stream().filter(s -> s.timeMs() >= fromMs && s.timeMs() < toMs)
                .mapToLong(Sample::estimateBps).max().orElseThrow();
    }

    /** First sample time at or after {@code fromMs} where the predicate holds, or -1. */
    long firstTimeMs(long fromMs, java.util.function.Predicate<Sample> p) {
        return samples.stream().filter(s -> s.timeMs() >= fromMs && p.test(s)).mapToLong(Sample::timeMs)
                .findFirst().orElse(-1);
    }

    String trace(long fromMs, long toMs, long everyMs) {
        StringBuilder sb = new StringBuilder();
        for (Sample s : samples) {
            if (s.timeMs() >= fromMs && s.timeMs() < toMs && s.timeMs() % everyMs == 0) {
                sb.append(String.format("t=%5dms cap=%5dk est=%5dk media=%5dk %s%n", s.timeMs(),
                        s.capacityBps() / 1000, s.estimateBps() / 1000, s.mediaBps() / 1000, s.usage()));
            }
        }
        return sb.toString();
    }
}
