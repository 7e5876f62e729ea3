package dev.parley.sfu.routing;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.platform.internal.SfuEvent;
import dev.parley.sfu.allocation.AllocationResult;
import dev.parley.sfu.events.EventPublisher;
import dev.parley.sfu.quality.ParticipantQualityTracker;
import dev.parley.sfu.quality.QualityReport;
import dev.parley.sfu.quality.QualitySample;

/**
 * One participant's connection quality for its own indicator (docs/bwe.md §4): once a second a
 * {@link QualitySample} from what the SFU measures (uplink loss and jitter from the receive statistics of its
 * published layers, downlink loss and estimate from its subscribe transport's estimator, whether its video is
 * paused or below what its layout wants, the highest layer it is forwarded); the tracker's reports (every 5 s,
 * earlier when it got worse) go to the owner controller as {@code quality} events for that participant.
 * Round-trip time is the subscribe transport's, from the receiver reports on our sender reports
 * ({@link dev.parley.sfu.quality.RoundTripTime}; -1 until the first one, and for a participant that only publishes).
 */
final class QualityReporting {
    private final ParticipantQualityTracker tracker;
    private long lastExpected = -1, lastReceived = -1;

    QualityReporting(String participantId) { tracker = new ParticipantQualityTracker(participantId); }

    /** Call about once a second on the media thread. */
    void sample(Participant p, long now, EventPublisher events) {
        boolean publishing = p.publish != null && p.publish.connected();
        boolean subscribing = p.subscribe != null && p.subscribe.connected();
        if (!publishing && !subscribing) return;
        long expected = 0, received = 0;
        double jitterMs = -1;
        boolean uplinkFlowing = false;
        for (PublishedTrack t : p.tracksByMid.values()) {
            for (Layer l : t.layers) {
                if (!l.seqInit) continue;
                expected += l.expected();
                received += l.received;
                jitterMs = Math.max(jitterMs, l.jitter() * 1000.0 / t.clockRate);
                uplinkFlowing |= now - l.lastPacketNanos < 1_500_000_000L;
            }
        }
        double uplinkLoss = 0;
        if (lastExpected >= 0 && expected - lastExpected > 0) {
            uplinkLoss = Math.max(0, Math.min(1, 1 - (double) (received - lastReceived) / (expected - lastExpected)));
        }
        lastExpected = expected;
        lastReceived = received;
        double downlinkLoss = 0;
        long estimate = -1;
        boolean deficient = false, paused = false;
        int top = -1;
        if (subscribing && p.bwe != null) {
            estimate = p.bwe.estimateBps();
            downlinkLoss = p.bwe.stats(now / 1000).lossFraction();
            AllocationResult r = p.allocation == null ? null : p.allocation.last();
            deficient = r != null && r.deficient();
        }
        for (Slot s : p.slots) {
            if (!s.video || s.track == null) continue;
            paused |= s.paused;
            if (!s.paused && s.current != null && s.current.active(now)) top = Math.max(top, s.current.index);
        }
        boolean flowing = uplinkFlowing || subscribing;
        tracker.onSample(new QualitySample(Math.max(uplinkLoss, downlinkLoss), subscribing ? p.rtt.rttMs() : -1, jitterMs, estimate, deficient, paused, flowing, top));
        QualityReport q = tracker.maybeReport(now / 1_000_000);
        if (q == null) return;
        ObjectNode data = JsonNodeFactory.instance.objectNode().put("level", q.quality().name().toLowerCase(java.util.Locale.ROOT))
                .put("loss_fraction", q.lossFraction()).put("rtt_ms", q.rttMs()).put("jitter_ms", q.jitterMs())
                .put("estimate_bps", q.estimateBps()).put("top_spatial_layer", q.topSpatialLayer()).put("sequence", q.sequence());
        boolean viaSubscribe = p.subscribeEventsUrl != null;
        events.publish(viaSubscribe ? p.subscribeEventsUrl : p.publishEventsUrl, SfuEvent.QUALITY, p.meeting.id, p.id,
                viaSubscribe ? p.subscribeGeneration : p.publishGeneration, data);
    }
}
