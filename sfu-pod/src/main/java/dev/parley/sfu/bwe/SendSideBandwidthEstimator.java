package dev.parley.sfu.bwe;

/**
 * Send-side bandwidth estimation for one subscriber transport (GCC, draft-ietf-rmcat-gcc-02, as libwebrtc
 * runs it on the sender): the SFU records every packet it sends with a transport-wide sequence number and
 * feeds back the receiver's transport-cc reports; the estimator answers "how many bits per second can we
 * send to this subscriber right now".
 *
 * <pre>
 *   feedback ─┬─ received ─▶ acked bitrate ──────────────┐
 *             ├─ received ─▶ 5 ms groups ─▶ trendline ─▶ overuse detector ─▶ AIMD ─┐
 *             ├─ probes   ─▶ probe result ───────────────────────────────────▶ AIMD │
 *             └─ lost/recv ─▶ loss controller (cap) ─────────────────────────────────┴▶ min ─▶ estimate
 * </pre>
 *
 * <p>Threading: one instance belongs to one transport and must be driven from that transport's event loop
 * (no locks inside). {@link #onPacketSent} and the per-entry feedback calls are allocation-free; only
 * probe requests (a few per minute) and {@link #stats} allocate.
 *
 * <p>Feedback is delivered as a start call, one call per reported packet in report order, and an end call,
 * so the SFU's transport-cc parser can stream entries without building a list.
 */
public final class SendSideBandwidthEstimator implements FeedbackSink {

    private static final long ACKED_WINDOW_MICROS = 500_000;
    private static final long ACKED_MIN_SPAN_MICROS = 150_000;

    private final BweConfig config;
    private final SentPacketHistory history = new SentPacketHistory();
    private final PacketGroupAccumulator groups = new PacketGroupAccumulator();
    private final TrendlineEstimator trendline = new TrendlineEstimator();
    private final OveruseDetector detector = new OveruseDetector();
    private final AimdRateController aimd;
    private final LossBasedController loss;
    private final RateWindow acked = new RateWindow(ACKED_WINDOW_MICROS, 10);
    private final ProbeResultEstimator probeResults = new ProbeResultEstimator();
    private final ProbeController probes;
    private final AlrDetector alr = new AlrDetector();

    private EstimatorMode mode = EstimatorMode.STARTUP;
    private long estimateBps;
    private int rttMs = 100;
    /** An RTT came from RTCP ({@link #onRttMs}); until then the feedback's own round trip stands in for it. */
    private boolean rttFromRtcp;
    /**
     * Round trip measured from transport-cc itself: when a report arrives, minus when the newest packet it
     * acknowledges was sent (so it includes the path's queueing and up to one feedback interval). Rises at once,
     * falls smoothly; -1 until the first report.
     */
    private int feedbackRttMs = -1;
    private long batchNewestSendMicros = Long.MIN_VALUE;
    private long unknownFeedback;
    private boolean started;
    // per-feedback accumulation
    private boolean batchOveruse;
    private long batchProbeBps;
    private long newestArrivalMicros = Long.MIN_VALUE;

    public SendSideBandwidthEstimator(BweConfig config) {
        this.config = config;
        this.aimd = new AimdRateController(config.startBitrateBps(), config.minBitrateBps(), config.maxBitrateBps());
        this.loss = new LossBasedController(config.minBitrateBps(), config.maxBitrateBps());
        this.probes = new ProbeController(config);
        this.estimateBps = config.startBitrateBps();
    }

    // ---------------------------------------------------------------- send side

    /**
     * Records a packet just handed to the socket. {@code transportSeq} is the 16-bit transport-wide
     * sequence number written into the header extension; {@code probeClusterId} is the id of the
     * {@link ProbeClusterRequest} running while it was sent, or -1 when no cluster runs.
     */
    public void onPacketSent(int transportSeq, long sendTimeMicros, int sizeBytes, int probeClusterId) {
        history.record(transportSeq, sendTimeMicros, sizeBytes, probeClusterId);
        alr.onMediaSent(sendTimeMicros, sizeBytes); // probes are 20 ms bursts: negligible in a 500 ms rate
        if (!started) {
            started = true;
            probes.onStart(sendTimeMicros, estimateBps);
        }
    }

    /** Must be called for every cluster taken from {@link #pollProbeCluster} when the SFU starts sending it. */
    public void onProbeClusterStarted(ProbeClusterRequest request) {
        probeResults.onClusterStarted(request);
    }

    // ---------------------------------------------------------------- transport-cc feedback

    @Override
    public void onFeedbackStart(long nowMicros) {
        batchOveruse = false;
        batchProbeBps = -1;
        batchNewestSendMicros = Long.MIN_VALUE;
    }

    /**
     * One entry of a transport-cc report. {@code arrivalTimeMicros} is on the receiver's clock (reference
     * time plus deltas); only differences between arrivals are used. Ignored when {@code received} is false.
     */
    @Override
    public void onPacketFeedback(int transportSeq, boolean received, long arrivalTimeMicros) {
        int slot = history.find(transportSeq);
        if (slot < 0) {
            unknownFeedback++; // never sent by us or too old: counted, not fatal
            return;
        }
        byte state = history.state(slot);
        if (state == SentPacketHistory.REPORTED_RECEIVED) {
            return; // reports overlap; each packet counts once
        }
        if (!received) {
            if (state == SentPacketHistory.NOT_REPORTED) {
                history.setState(slot, SentPacketHistory.REPORTED_LOST);
                loss.onPacketResult(false);
            }
            return;
        }
        history.setState(slot, SentPacketHistory.REPORTED_RECEIVED);
        if (state == SentPacketHistory.NOT_REPORTED) {
            loss.onPacketResult(true); // a late arrival after a "lost" report stays counted as lost
        }
        long send = history.sendTimeMicros(slot);
        int size = history.sizeBytes(slot);
        if (send > batchNewestSendMicros) {
            batchNewestSendMicros = send;
        }
        acked.add(arrivalTimeMicros, size);
        if (arrivalTimeMicros > newestArrivalMicros) {
            newestArrivalMicros = arrivalTimeMicros;
        }
        int cluster = history.probeClusterId(slot);
        if (cluster >= 0) {
            long probe = probeResults.onProbePacket(cluster, send, arrivalTimeMicros, size);
            if (probe > batchProbeBps) {
                batchProbeBps = probe;
            }
        }
        if (groups.add(send, arrivalTimeMicros, size)) {
            double trend = trendline.update(groups.sendDeltaMicros, groups.arrivalDeltaMicros,
                    groups.groupArrivalMicros);
            if (detector.detect(trend, groups.sendDeltaMicros, groups.groupArrivalMicros)
                    == BandwidthUsage.OVERUSING) {
                batchOveruse = true;
            }
        }
    }

    /** Ends a report and updates the estimate; returns the new estimate in bits per second. */
    @Override
    public long onFeedbackEnd(long nowMicros) {
        mode = EstimatorMode.TRANSPORT_CC;
        if (batchNewestSendMicros != Long.MIN_VALUE) {
            int sample = (int) Math.max(1, Math.min(3_000, (nowMicros - batchNewestSendMicros) / 1000));
            feedbackRttMs = feedbackRttMs < 0 || sample >= feedbackRttMs ? sample : (3 * feedbackRttMs + sample) / 4;
            if (!rttFromRtcp) {
                aimd.setRttMs(feedbackRttMs);      // at most one decrease per round trip, queueing included
            }
        }
        BandwidthUsage usage = batchOveruse ? BandwidthUsage.OVERUSING : detector.state();
        long ackedBps = ackedBitrate();
        if (batchProbeBps > 0) {
            probes.onProbeResult();
        }
        if (usage != BandwidthUsage.OVERUSING && batchProbeBps > aimd.estimateBps()) {
            aimd.onProbeResult(batchProbeBps, nowMicros);
            loss.onProbeResult(batchProbeBps);
        } else {
            aimd.update(usage, ackedBps, nowMicros);
            if (usage != BandwidthUsage.OVERUSING && batchProbeBps > estimateBps) {
                // the path carried more than the final estimate: a loss cap left from an earlier overload (below the
                // delay-based estimate) must not ignore that, or it only grows 8 %/s (seen: 36 kbps → 120 kbps in
                // 14 s after the browser test lifted its limit, every probe result between the two discarded)
                loss.onProbeResult(batchProbeBps);
            }
        }
        combine(aimd.estimateBps(), nowMicros);
        alr.update(nowMicros, estimateBps);
        probes.onEstimate(nowMicros, estimateBps);
        return estimateBps;
    }

    // ---------------------------------------------------------------- other inputs

    /** RTT from RTCP (RR/XR): paces decreases and the additive increase. */
    public void onRttMs(int rtt) {
        this.rttMs = Math.max(1, rtt);
        this.rttFromRtcp = true;
        aimd.setRttMs(this.rttMs);
    }

    /**
     * REMB fallback: a receiver that did not negotiate transport-cc tells us its own estimate. Ignored once
     * transport-cc feedback has been seen (send-side estimation is better informed).
     */
    public long onRemb(long bps, long nowMicros) {
        if (mode == EstimatorMode.TRANSPORT_CC || bps <= 0) { // a zero/negative REMB is a broken receiver
            return estimateBps;
        }
        mode = EstimatorMode.REMB;
        aimd.setEstimate(bps, nowMicros);
        combine(aimd.estimateBps(), nowMicros);
        return estimateBps;
    }

    /** Loss from RTCP receiver reports; only used in REMB mode (transport-cc reports loss exactly). */
    public void onReceiverReportLoss(int fractionLostQ8, int packets, long nowMicros) {
        if (mode == EstimatorMode.TRANSPORT_CC || packets <= 0 || fractionLostQ8 < 0 || fractionLostQ8 > 255) {
            return; // transport-cc reports loss exactly; out-of-range RR fields are ignored, not trusted
        }
        loss.onReceiverReport(fractionLostQ8, packets);
        combine(aimd.estimateBps(), nowMicros);
    }

    /** Periodic housekeeping (every 25–100 ms): ALR state and probe decisions. */
    public void onTick(long nowMicros) {
        boolean inAlr = alr.update(nowMicros, estimateBps);
        if (mode == EstimatorMode.TRANSPORT_CC) {
            probes.onTick(nowMicros, estimateBps, inAlr); // a probe can only be measured with transport-cc
        }
    }

    /** What the allocator would forward with unlimited bandwidth; probing never aims far above it. */
    public void setDesiredBitrate(long bps) {
        probes.setDesiredBitrate(bps);
    }

    /** Whether the subscriber negotiated RTX, so probes may be retransmissions instead of padding. */
    public void setRtxAvailable(boolean available) {
        probes.setRtxAvailable(available);
    }

    /** The next probe cluster the SFU should send, or null. */
    public ProbeClusterRequest pollProbeCluster() {
        return probes.poll();
    }

    // ---------------------------------------------------------------- outputs

    public long estimateBps() {
        return estimateBps;
    }

    public EstimatorMode mode() {
        return mode;
    }

    public BweStats stats(long nowMicros) {
        return new BweStats(estimateBps, aimd.estimateBps(), loss.capBps(), ackedBitrate(),
                alr.sendRateBps(nowMicros), loss.lastLossFraction(), detector.state(), alr.inAlr(), mode, rttMs,
                unknownFeedback);
    }

    private long ackedBitrate() {
        return newestArrivalMicros == Long.MIN_VALUE ? -1
                : acked.bitsPerSecond(newestArrivalMicros, ACKED_MIN_SPAN_MICROS);
    }

    private void combine(long delayBasedBps, long nowMicros) {
        long before = Math.min(delayBasedBps, loss.capBps());
        // the loss controller waits a round trip between cuts so that it answers each congestion once: with a
        // queue on the path that round trip is far longer than the nominal 100 ms (500 ms of drop-tail queue
        // behind a 300 kbps link made it cut five times for one overload and take the estimate to its floor)
        int lossRttMs = rttFromRtcp || feedbackRttMs < 0 ? rttMs : feedbackRttMs;
        long cap = loss.update(before, lossRttMs, nowMicros);
        long combined = Math.min(delayBasedBps, cap);
        estimateBps = Math.max(config.minBitrateBps(), Math.min(config.maxBitrateBps(), combined));
    }
}
