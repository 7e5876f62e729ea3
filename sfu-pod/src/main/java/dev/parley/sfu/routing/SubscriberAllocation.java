package dev.parley.sfu.routing;

import dev.parley.sfu.allocation.AllocationResult;
import dev.parley.sfu.allocation.SubscribedTrack;
import dev.parley.sfu.allocation.SubscriberAllocator;
import dev.parley.sfu.allocation.TrackAllocation;
import dev.parley.sfu.allocation.TrackKind;
import dev.parley.sfu.allocation.TrackState;
import dev.parley.sfu.allocation.VideoLayer;
import dev.parley.sfu.bwe.EstimatorMode;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ObjLongConsumer;

/**
 * Lets one subscriber's bandwidth estimate choose what it receives (docs/bwe.md §2): every
 * {@link #INTERVAL_NANOS} on the media thread it describes the subscriber's slots to its
 * {@link SubscriberAllocator} (measured layer bitrates, tile size from {@code subscribe}) and applies the
 * decision to the slots: the target layer (the forwarder switches at that layer's next keyframe) or a pause
 * (nothing forwarded; resumed at a keyframe). Audio is never paused. Nothing here runs per packet.
 */
final class SubscriberAllocation {
    private static final Logger LOG = LoggerFactory.getLogger(SubscriberAllocation.class);
    /** How often the allocator runs per subscriber. */
    static final long INTERVAL_NANOS = 200_000_000L;
    /**
     * What a single-encoding video costs the allocator at most. The SFU cannot make such a stream smaller, so
     * pausing it because its publisher sends more than this subscriber's estimate has proven (the estimate
     * only leads the media by the probing margin) would only freeze it; it is paused when not even a
     * thumbnail's worth of bandwidth is left.
     */
    static final long SINGLE_ENCODING_COST_BPS = 100_000;
    private static final double ASSUMED_FPS = 30;
    /**
     * A track is paused only after the allocator has said so for this long (it keeps its lowest layer
     * meanwhile): a pause costs a freeze and a keyframe to resume, and one overuse dip of the estimate, typical
     * right after a keyframe burst, must not cause it. A link that really can't carry the lowest layer pauses
     * within this plus the estimator's reaction time.
     */
    static final long PAUSE_GRACE_NANOS = 1_000_000_000L;
    /**
     * A paused video resumes only after the allocator has found room for its lowest layer plus as much again
     * (the keyframe that resuming costs) for this long.
     */
    static final long RESUME_HOLD_NANOS = 2_000_000_000L;
    /**
     * A temporal step up waits for a layer-sync picture; libwebrtc sends one for TL1 only after a keyframe, so
     * when none came for this long the publisher is asked for a keyframe.
     */
    static final long TEMPORAL_UP_KEYFRAME_NANOS = 1_000_000_000L;

    private final SubscriberAllocator allocator = new SubscriberAllocator();
    private AllocationResult last;
    private long lastRunNanos;
    /** What was last logged per slot (debug: one line per change of target layer, temporal target or pause). */
    private final Map<Slot, String> logged = new IdentityHashMap<>();

    boolean due(long now) { return now - lastRunNanos >= INTERVAL_NANOS; }

    AllocationResult last() { return last; }

    /** One allocation round for {@code sub}; {@code keyframe} asks the publisher of a layer for a keyframe. */
    void run(Participant sub, long now, ObjLongConsumer<Layer> keyframe) {
        lastRunNanos = now;
        if (sub.bwe == null) return;
        List<SubscribedTrack> tracks = new ArrayList<>(sub.slots.size());
        for (Slot s : sub.slots) {
            if (s.track == null) continue;
            SubscribedTrack t = describe(s, now, keyframe, sub);
            if (t != null) tracks.add(t);
        }
        AllocationResult r = allocator.allocate(now / 1_000_000, sub.bwe.estimateBps(), tracks);
        last = r;
        sub.bwe.setDesiredBitrate(r.desiredBps());
        // before the first feedback the estimate is only the start value: nothing is paused on a guess
        boolean mayPause = sub.bwe.mode() != EstimatorMode.STARTUP;
        for (Slot s : sub.slots) {
            if (!s.video || s.track == null) continue;
            TrackAllocation a = r.track(s.track.trackId);
            if (a == null) continue;
            if (a.state() == TrackState.PAUSED_BANDWIDTH && mayPause && sub.bwe.estimateBps() < r.allocatedBps() + lowestCost(tracks, a.trackId())) {
                if (s.pauseWantedSince == 0) s.pauseWantedSince = now;
                if (s.paused || now - s.pauseWantedSince >= PAUSE_GRACE_NANOS) {
                    s.paused = true;
                    continue;
                }
            } else {
                s.pauseWantedSince = 0;
            }
            Layer target = a.forwarding() && a.spatial() < s.track.layers.length ? s.track.layers[a.spatial()] : lowestActive(s.track, now);
            if (target == null) continue;
            if (s.paused) {
                // resume only with room for the layer and its keyframe, held for a while: on a link that barely
                // misses the lowest layer each resume was a keyframe burst that pushed audio out of the queue
                boolean room = a.forwarding() && sub.bwe.estimateBps() >= r.allocatedBps() + lowestCost(tracks, a.trackId());
                if (!room) { s.resumeWantedSince = 0; continue; }
                if (s.resumeWantedSince == 0) s.resumeWantedSince = now;
                if (now - s.resumeWantedSince < RESUME_HOLD_NANOS) continue;
                s.paused = false;                        // the decoder needs a keyframe of the layer
                s.resumeWantedSince = 0;
                s.waitingKeyframe = true;
            }
            s.target = target;
            // the stream's top temporal layer means "all of them" (also any the measurement hasn't seen yet)
            int top = target.temporalLayers - 1;
            s.temporal.target = a.forwarding() && a.temporal() < top ? a.temporal() : TemporalFilter.ALL;
            if (s.current != target || s.waitingKeyframe
                    || (s.current == target && s.temporal.upswitchStalled(now, top, TEMPORAL_UP_KEYFRAME_NANOS))) {
                keyframe.accept(target, now);
            }
        }
        if (LOG.isDebugEnabled()) logChanges(sub, r, tracks);
    }

    /** Debug: the slot's applied decision and what the allocator saw, when it changed. */
    private void logChanges(Participant sub, AllocationResult r, List<SubscribedTrack> tracks) {
        for (Slot s : sub.slots) {
            if (!s.video || s.track == null) continue;
            String state = "target=" + (s.target == null ? -1 : s.target.index) + " tt=" + s.temporal.target + " paused=" + s.paused;
            if (state.equals(logged.put(s, state))) continue;
            StringBuilder layers = new StringBuilder();
            for (SubscribedTrack t : tracks) {
                if (!t.trackId().equals(s.track.trackId)) continue;
                for (VideoLayer l : t.layers()) {
                    layers.append(' ').append(l.spatial()).append('/').append(l.temporal()).append('=').append(l.bitrateBps() / 1000)
                            .append("k@").append(Math.round(l.fps())).append("fps");
                }
            }
            LOG.debug("{} {}: {} current={} est={} budget={} allocated={} layers:{}", sub.id, s.mid, state,
                    s.current == null ? -1 : s.current.index, sub.bwe.estimateBps(), r.budgetBps(), r.allocatedBps(), layers);
        }
    }

    /**
     * What the lowest layer of {@code trackId} costs. A pause also needs the raw estimate (not only the
     * allocator's budget, which sits at the bottom of the estimator's sawtooth for seconds) to be short of it:
     * on a link that carries the lowest layer with little to spare, the dips are no reason to freeze it.
     */
    private static long lowestCost(List<SubscribedTrack> tracks, String trackId) {
        long min = Long.MAX_VALUE;
        for (SubscribedTrack t : tracks) {
            if (!t.trackId().equals(trackId)) continue;
            for (VideoLayer l : t.layers()) min = Math.min(min, l.bitrateBps());
        }
        return min == Long.MAX_VALUE ? 0 : min;
    }

    /**
     * The allocator's view of one slot's track; null while the publisher sends none of its layers. Each simulcast
     * layer with VP8 temporal layers gives one operating point per TID (cost: the measured share of the bytes of
     * TIDs up to it; frame rate: measured). The speaker rank is the publisher's place in the meeting's latest
     * active-speaker list; the frame-rate limit comes from the subscriber's {@code subscribe}.
     */
    private static SubscribedTrack describe(Slot s, long now, ObjLongConsumer<Layer> keyframe, Participant sub) {
        PublishedTrack t = s.track;
        if (!t.video) return SubscribedTrack.audio(t.trackId, t.layers[0].bitrateBps);
        List<VideoLayer> layers = new ArrayList<>(t.layers.length * 3);
        long lowerCost = 0;
        for (Layer l : t.layers) {
            long stoppedCost = s.subscriber.meeting.dynacast.stoppedCost(l);   // -1 unless dynacast stopped it
            if (!l.active(now) && stoppedCost < 0) continue;
            if (l.width == 0 && t.layers.length > 1 && now - l.lastPliNanos > 1_000_000_000L) keyframe.accept(l, now); // learn its size
            long cost = t.layers.length == 1 ? Math.min(l.bitrateBps > 0 ? l.bitrateBps : SINGLE_ENCODING_COST_BPS, SINGLE_ENCODING_COST_BPS)
                    : l.bitrateBps;                      // 0 (not measured yet): the allocator assumes a nominal rate
            if (stoppedCost >= 0 && !l.active(now)) cost = stoppedCost;      // asking for it resumes it (dynacast)
            // a larger encoding measured cheaper than a smaller one is a measurement of a stream that has just
            // (re)started or is ramping up, not its price: it costs at least what the layer below costs (seen in the
            // browser test: a restarted 720p measured 71 kbps for one interval and a 120 kbps subscriber was moved to it)
            if (cost > 0) {
                cost = Math.max(cost, lowerCost);
                lowerCost = cost;
            }
            if (l == s.current && t.layers.length > 1) cost = cost * 3 / 4;   // its encoder's own swings are no reason to leave it
            int n = l.temporalLayers;
            if (n <= 1) {
                layers.add(new VideoLayer(l.index, 0, cost, l.width, l.height, n == 1 && l.temporalFps[0] > 0 ? l.temporalFps[0] : ASSUMED_FPS));
                continue;
            }
            for (int k = 0; k < n; k++) {
                double fps = l.temporalFps[k] > 0 ? l.temporalFps[k] : ASSUMED_FPS / (1 << (n - 1 - k));
                long c = k == n - 1 ? cost : cost * l.temporalSharePermille[k] / 1000;
                layers.add(new VideoLayer(l.index, k, cost == 0 ? 0 : Math.max(1, c), l.width, l.height, fps));
            }
        }
        if (layers.isEmpty()) return null;
        // no tile size from the layout (0 × 0) is treated as "smallest", as before allocation existed
        int w = Math.max(1, s.maxWidth), h = Math.max(1, s.maxHeight);
        int[] wanted = sub.wanted.get(t.trackId);
        int maxFps = wanted != null && wanted.length > 2 ? Math.max(0, wanted[2]) : 0;
        // kind and pin come from the publisher's declared source and the subscriber's subscribe entries
        return SubscribedTrack.video(t.trackId, t.screen ? TrackKind.SCREEN : TrackKind.CAMERA, w, h, layers)
                .withPinned(sub.pinned.contains(t.trackId))
                .withSpeakerRank(sub.meeting.speakers.rank(t.owner.id))
                .withMaxFps(maxFps);
    }

    private static Layer lowestActive(PublishedTrack t, long now) {
        for (Layer l : t.layers) if (l.active(now)) return l;
        return null;
    }
}
