package dev.parley.sfu.allocation;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Shares one subscriber's bandwidth estimate among the tracks it receives, so each receiver gets what its
 * own network and screen allow and one slow receiver never lowers anyone else's quality.
 *
 * <ol>
 *   <li>Audio is always forwarded and paid for first.</li>
 *   <li>Every visible video track, in {@link TrackPriority} order, gets its lowest operating point if it
 *       still fits; a track whose lowest point does not fit is paused (event PAUSED; RESUMED when it fits
 *       again). Showing every tile small beats showing one tile large and freezing the rest.</li>
 *   <li>In the same order, each track is raised to its most preferred operating point (see
 *       {@link LayerSelector}) that fits what is left, never above what its tile needs.</li>
 * </ol>
 * The budget is the estimate through {@link BudgetHysteresis}: down at once, up only after it held.
 * Spatial changes and resumes emit {@link KeyframeNeed}s (a decoder cannot start mid-stream on a new
 * simulcast encoding); temporal changes need none.
 *
 * <p>One instance per subscriber, driven from that subscriber's event loop. Calling it on every feedback is
 * fine: when the budget is unchanged and the SFU passes the same (immutable) track list instance as last
 * time, it returns the previous decision without recomputing (the budget only moves on a decrease or after
 * a hold, so this is the common case). Pass a new list whenever the subscription, layout, speaker ranks or
 * layer bitrates changed. A full run allocates a few small objects; it is not meant for every packet.
 */
public final class SubscriberAllocator {

    /** Default hold before stepping up: long enough to ride out AIMD's sawtooth, short enough to recover fast. */
    public static final long DEFAULT_STEP_UP_HOLD_MS = 3_000;

    private final BudgetHysteresis budget;
    private Map<String, TrackAllocation> previous = new HashMap<>();
    private List<SubscribedTrack> lastTracks;
    private AllocationResult lastUnchanged;

    public SubscriberAllocator(long stepUpHoldMs) {
        this.budget = new BudgetHysteresis(stepUpHoldMs);
    }

    public SubscriberAllocator() {
        this(DEFAULT_STEP_UP_HOLD_MS);
    }

    public AllocationResult allocate(long nowMs, long estimateBps, List<SubscribedTrack> subscribed) {
        long budgetBps = budget.update(estimateBps, nowMs);
        if (subscribed == lastTracks && lastUnchanged != null && lastUnchanged.budgetBps() == budgetBps) {
            return lastUnchanged;
        }
        AllocationResult result = compute(budgetBps, subscribed);
        lastTracks = subscribed;
        lastUnchanged = result.events().isEmpty() && result.keyframes().isEmpty() ? result
                : new AllocationResult(result.tracks(), result.budgetBps(), result.allocatedBps(),
                        result.desiredBps(), List.of(), List.of());
        return result;
    }

    private AllocationResult compute(long budgetBps, List<SubscribedTrack> subscribed) {
        List<SubscribedTrack> ordered = new ArrayList<>(subscribed);
        ordered.sort(TrackPriority.ORDER);

        int n = ordered.size();
        VideoLayer[] wanted = new VideoLayer[n];
        VideoLayer[] chosen = new VideoLayer[n];
        List<List<VideoLayer>> candidates = new ArrayList<>(n);
        long remaining = budgetBps;
        long desired = 0;

        for (int i = 0; i < n; i++) {
            SubscribedTrack t = ordered.get(i);
            wanted[i] = t.visible() ? LayerSelector.wanted(t) : null;
            candidates.add(wanted[i] == null ? List.of() : LayerSelector.candidates(t, wanted[i]));
            if (wanted[i] != null) {
                desired += wanted[i].bitrateBps();
            }
            if (t.kind() == TrackKind.AUDIO) {
                chosen[i] = wanted[i];
                remaining -= chosen[i].bitrateBps(); // audio is never paused for bandwidth
            }
        }
        // pass 1: the lowest point for every visible video track that still fits
        for (int i = 0; i < n; i++) {
            List<VideoLayer> c = candidates.get(i);
            if (ordered.get(i).kind() == TrackKind.AUDIO || c.isEmpty()) {
                continue;
            }
            VideoLayer lowest = c.get(c.size() - 1);
            if (lowest.bitrateBps() <= remaining) {
                chosen[i] = lowest;
                remaining -= lowest.bitrateBps();
            }
        }
        // pass 2: raise in priority order
        for (int i = 0; i < n; i++) {
            if (ordered.get(i).kind() == TrackKind.AUDIO || chosen[i] == null) {
                continue;
            }
            long available = remaining + chosen[i].bitrateBps();
            for (VideoLayer l : candidates.get(i)) {
                if (l.bitrateBps() <= available) {
                    remaining = available - l.bitrateBps();
                    chosen[i] = l;
                    break;
                }
            }
        }
        return diff(ordered, wanted, chosen, budgetBps, desired);
    }

    /** Forget a track the subscriber no longer receives (so a later re-subscribe starts fresh). */
    public void forget(String trackId) {
        previous.remove(trackId);
        lastUnchanged = null;
    }

    private AllocationResult diff(List<SubscribedTrack> ordered, VideoLayer[] wanted, VideoLayer[] chosen,
                                  long budgetBps, long desired) {
        List<TrackAllocation> out = new ArrayList<>(ordered.size());
        List<AllocationEvent> events = new ArrayList<>(2);
        List<KeyframeNeed> keyframes = new ArrayList<>(2);
        Map<String, TrackAllocation> next = new HashMap<>();
        long allocated = 0;
        for (int i = 0; i < ordered.size(); i++) {
            SubscribedTrack t = ordered.get(i);
            TrackAllocation a;
            int ws = wanted[i] == null ? -1 : wanted[i].spatial();
            int wt = wanted[i] == null ? -1 : wanted[i].temporal();
            if (chosen[i] != null) {
                a = new TrackAllocation(t.trackId(), t.kind(), TrackState.FORWARDING, chosen[i].spatial(),
                        chosen[i].temporal(), chosen[i].bitrateBps(), ws, wt);
                allocated += chosen[i].bitrateBps();
            } else {
                TrackState state = t.visible() ? TrackState.PAUSED_BANDWIDTH : TrackState.NOT_VISIBLE;
                a = new TrackAllocation(t.trackId(), t.kind(), state, -1, -1, 0, ws, wt);
            }
            out.add(a);
            next.put(t.trackId(), a);
            if (t.kind() != TrackKind.AUDIO) {
                compare(previous.get(t.trackId()), a, events, keyframes);
            }
        }
        previous = next;
        return new AllocationResult(List.copyOf(out), budgetBps, allocated, desired, List.copyOf(events),
                List.copyOf(keyframes));
    }

    private static void compare(TrackAllocation before, TrackAllocation now, List<AllocationEvent> events,
                                List<KeyframeNeed> keyframes) {
        boolean wasForwarding = before != null && before.forwarding();
        if (now.state() == TrackState.PAUSED_BANDWIDTH && (before == null || before.state() != TrackState.PAUSED_BANDWIDTH)) {
            events.add(new AllocationEvent(AllocationEvent.Type.PAUSED, now.trackId(), -1, -1));
            return;
        }
        if (!now.forwarding()) {
            return;
        }
        if (before != null && before.state() == TrackState.PAUSED_BANDWIDTH) {
            events.add(new AllocationEvent(AllocationEvent.Type.RESUMED, now.trackId(), now.spatial(), now.temporal()));
        } else if (wasForwarding && (before.spatial() != now.spatial() || before.temporal() != now.temporal())) {
            events.add(new AllocationEvent(AllocationEvent.Type.LAYER_CHANGED, now.trackId(), now.spatial(),
                    now.temporal()));
        }
        if (!wasForwarding || before.spatial() != now.spatial()) {
            keyframes.add(new KeyframeNeed(now.trackId(), now.spatial()));
        }
    }
}
