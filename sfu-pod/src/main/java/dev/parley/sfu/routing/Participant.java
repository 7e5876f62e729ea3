package dev.parley.sfu.routing;

import dev.parley.platform.internal.PublishSource;
import dev.parley.platform.internal.TrackSubscription;
import dev.parley.sfu.bwe.BweConfig;
import dev.parley.sfu.bwe.ProbePacer;
import dev.parley.sfu.bwe.SendSideBandwidthEstimator;
import dev.parley.sfu.bwe.TransportFeedbackReader;
import dev.parley.sfu.grant.GrantState;
import dev.parley.sfu.quality.RoundTripTime;
import dev.parley.sfu.transport.WebRtcTransport;
import io.netty.util.collection.IntObjectHashMap;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
    /** The client reads {@code slot_delta} notices (its subscribe transport request said {@code slot_deltas}). */
    boolean slotDeltas;
    /**
     * Version of the slot map (docs/internal-api.md "Top-N audio"): +1 whenever top-N moves an audio slot; answers
     * carry it, a {@code slot_delta} names the version it applies to. It starts from the clock (µs) so that a new
     * participant object (a new SFU, a rejoin) keeps growing past what the client held.
     */
    long slotVersion = System.currentTimeMillis() * 1000;
    /** Requested tile sizes per track id (from the controller). */
    final Map<String, int[]> wanted = new HashMap<>();
    /** Track ids this subscriber pinned ({@code subscribe} entries with {@code pinned: true}). */
    final Set<String> pinned = new HashSet<>();
    /** Videos this subscriber does not watch (a {@code subscribe} entry of 0 × 0: off its page): no slot carries them. */
    final Set<String> unwatched = new HashSet<>();
    /**
     * What the publisher's client declared per publish mid ({@code camera | screen | microphone}); an undeclared
     * mid is a camera or microphone. Kept across renegotiations: each publish offer that names sources replaces it.
     */
    final Map<String, String> publishSources = new HashMap<>();
    /** Round-trip time toward this participant from its receiver reports on our sender reports. */
    final RoundTripTime rtt = new RoundTripTime();
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

    /** When the SFU first saw this participant with no transport, no relayed track and no live grant (0: not so). */
    long orphanSince;
    /** Layers holding their packets since the keyframe for this subscriber's coming connection (Router, KeyframeHold). */
    final List<Layer> holding = new ArrayList<>();
    /** Slot in the meeting's active-speaker detector, or -1 while no audio is published. */
    int speakerSlot = -1;
    /** Index in the meeting's top-N audio selector while an audio track is published, else -1. */
    int audioSlot = -1;

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
        rtt.reset();
    }

    GrantState grant() { return meeting.grants.get(id); }

    /**
     * A {@code subscribe} request's entries: tile size, frame-rate limit and pin per track id. Entries not named
     * keep what they had (a client may update one tile); a named entry without {@code pinned} is unpinned.
     */
    void applySubscriptions(List<TrackSubscription> tracks) {
        for (TrackSubscription ts : tracks) {
            wanted.put(ts.trackId(), new int[]{ts.maxWidth(), ts.maxHeight(), ts.maxFps()});
            if (ts.pinned()) pinned.add(ts.trackId());
            else pinned.remove(ts.trackId());
            if (ts.maxWidth() == 0 && ts.maxHeight() == 0) unwatched.add(ts.trackId());
            else unwatched.remove(ts.trackId());
            for (Slot s : slots) {
                if (s.track != null && s.track.trackId.equals(ts.trackId())) { s.maxWidth = ts.maxWidth(); s.maxHeight = ts.maxHeight(); }
            }
        }
    }

    /**
     * The publish offer's declared sources (null = the offer named none: what was declared before stays).
     * Tracks already published follow a changed declaration at once.
     */
    void applyPublishSources(List<PublishSource> sources) {
        if (sources == null) return;
        publishSources.clear();
        for (PublishSource s : sources) publishSources.put(s.mid(), s.source());
        for (PublishedTrack t : tracksByMid.values()) t.screen = isScreen(t.mid, t.video);
    }

    /** A video m-section the client declared as a screen share (an audio one never is). */
    boolean isScreen(String mid, boolean video) {
        return video && PublishSource.SCREEN.equals(publishSources.get(mid));
    }

    public String id() { return id; }
}
