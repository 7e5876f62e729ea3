package dev.parley.sfu.routing;

import dev.parley.sfu.bwe.BweConfig;
import dev.parley.sfu.bwe.ProbePacer;
import dev.parley.sfu.bwe.SendSideBandwidthEstimator;
import dev.parley.sfu.bwe.TransportFeedbackReader;
import dev.parley.sfu.grant.GrantState;
import dev.parley.sfu.transport.WebRtcTransport;
import io.netty.util.collection.IntObjectHashMap;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A participant's publish and subscribe connections, published tracks and receive slots. */
public final class Participant {
    private static final SecureRandom RANDOM = new SecureRandom();
    /**
     * The defaults, but probing every 2 s (not 3 s) while the allocation is deficient: a subscriber whose link
     * recovered finds out sooner (4 s after failed probes instead of 6 s); a probe is 20 ms of padding.
     */
    private static final BweConfig BWE_CONFIG = new BweConfig(300_000, 30_000, 10_000_000, true, 2_000_000);
    final String id;
    final Meeting meeting;
    WebRtcTransport publish, subscribe;
    long publishGeneration = -1, subscribeGeneration = -1;
    String publishEventsUrl, subscribeEventsUrl;
    final Map<String, PublishedTrack> tracksByMid = new HashMap<>();
    final Map<Long, PublishedTrack> tracksByDeclaredSsrc = new HashMap<>();
    final IntObjectHashMap<Layer> layersBySsrc = new IntObjectHashMap<>();
    /** RTX SSRC → the layer it repairs (learned from repaired-rid / mid or a=ssrc-group:FID). */
    final IntObjectHashMap<Layer> rtxLayersBySsrc = new IntObjectHashMap<>();
    int midExtId, ridExtId, repairedRidExtId;
    /** Subscribe slots in offer order. */
    final List<Slot> slots = new ArrayList<>();
    /** Requested tile sizes per track id (from the controller). */
    final Map<String, int[]> wanted = new HashMap<>();
    /** SSRC the SFU uses as RTCP sender toward this participant. */
    final int rtcpSsrc = RANDOM.nextInt() | 1;
    /**
     * Send-side congestion control of the current subscribe transport (replaced with it). {@code twccExtId}
     * is the transport-wide-cc extension id the browser offered (0 = not negotiated: REMB fallback);
     * {@code twccSeq} is the next transport-wide sequence number on that transport.
     */
    SendSideBandwidthEstimator bwe;
    ProbePacer pacer;
    TransportFeedbackReader twccReader;
    int twccExtId;
    int twccSeq;

    /**
     * Receive side of transport-wide-cc on the publish transport: {@code publishTwccExtId} is the negotiated
     * extension id (0 = none), {@code twccIn} records arrivals and writes the feedback the publisher's
     * browser estimates its uplink from (replaced with the publish transport).
     */
    int publishTwccExtId;
    dev.parley.sfu.feedback.TransportFeedbackRecorder twccIn;

    /** Allocation of the subscribe transport's estimate to the slots (replaced with the transport). */
    SubscriberAllocation allocation;
    /** A probe-filler task is scheduled for this subscriber. */
    boolean probeScheduled;
    /** TEST ONLY: emulated network path toward this subscriber (null = the real socket directly). */
    EmulatedLink testLink;

    /** Connection quality reported to this participant's own client (low rate). */
    final QualityReporting quality;
    /** What this subscriber's client was told about paused video subscriptions. */
    final PauseNotices pauseNotices = new PauseNotices();

    /** Slot in the meeting's active-speaker detector, or -1 while no audio is published. */
    int speakerSlot = -1;

    Participant(String id, Meeting meeting) {
        this.id = id;
        this.meeting = meeting;
        this.quality = new QualityReporting(id);
    }

    /** Fresh estimator state for a new subscribe transport (a new transport is a new path: nothing carries over). */
    void resetCongestionControl() {
        bwe = new SendSideBandwidthEstimator(BWE_CONFIG);
        bwe.setRtxAvailable(false);             // probes are padding on a slot's RTX SSRC; RTX payloads carry NACK answers only
        pacer = new ProbePacer(bwe);
        twccReader = new TransportFeedbackReader();
        twccSeq = 0;
        allocation = new SubscriberAllocation();
    }

    GrantState grant() { return meeting.grants.get(id); }

    public String id() { return id; }
}
