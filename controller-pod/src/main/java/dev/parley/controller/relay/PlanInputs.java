package dev.parley.controller.relay;

import dev.parley.controller.cascade.PlanInput;
import dev.parley.controller.cascade.SfuNode;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * What the owner knows of a meeting, made into the planner's {@link PlanInput}. Pure.
 *
 * <p>The owner does not know each subscriber's tile size per track (the SFU does), so every placed participant is
 * taken to want every track it does not publish at the track's top layer; the hop then carries layers 0..top
 * ({@link RelayApplier#layersToSend}), so the receiving SFU's per-subscriber BWE can still step down. That list is a
 * ceiling: the receiving SFU reports the largest tile it shows each track in and the origin sends only the layers
 * that tile needs (docs/sfu.md "Relay between SFUs").
 */
public final class PlanInputs {
    private PlanInputs() {
    }

    /**
     * @param placement participant id → SFU pod (participants with a transport, admitted)
     * @param tracks    the meeting's published tracks (from the origin SFUs' events)
     * @param regionOf  pod → its MediaRegion, null when the pod is not in the registry (dead)
     * @param planned   the pods on the previous plan's hops: alive ones stay live even with nobody placed there any
     *                  more, so their idle hops are kept for the grace (not cut as if the pod had died)
     */
    public static PlanInput of(Map<String, String> placement, Map<String, TrackInfo> tracks,
                               Function<String, String> regionOf, Set<String> planned) {
        return of(placement, tracks, regionOf, planned, Set.of());
    }

    /** As above; {@code draining}: pods in the registry as DRAINING (never a hub, see the planner). */
    public static PlanInput of(Map<String, String> placement, Map<String, TrackInfo> tracks,
                               Function<String, String> regionOf, Set<String> planned, Set<String> draining) {
        return of(placement, tracks, regionOf, planned, draining, Map.of());
    }

    /**
     * As above; {@code releasing}: participant id → the SFU it moved away from that still carries its connection
     * ({@code GrantService.releasing}). A publisher's tracks keep their origin there while that SFU lives, so the old
     * relays carry its media until its new connection is up (make-before-break for an origin that moves).
     */
    public static PlanInput of(Map<String, String> placement, Map<String, TrackInfo> tracks,
                               Function<String, String> regionOf, Set<String> planned, Set<String> draining,
                               Map<String, String> releasing) {
        Map<String, SfuNode> nodes = new HashMap<>();
        Set<String> live = new java.util.HashSet<>();
        for (Map.Entry<String, String> p : placement.entrySet()) {
            String region = regionOf.apply(p.getValue());
            nodes.put(p.getKey(), new SfuNode(p.getValue(), region == null ? "" : region));
            if (region != null) live.add(p.getValue());
        }
        for (String pod : planned) if (regionOf.apply(pod) != null) live.add(pod);
        Map<String, String> publisherOf = new HashMap<>();
        for (TrackInfo t : tracks.values()) {
            if (placement.containsKey(t.publisher())) publisherOf.put(t.trackId(), t.publisher());
        }
        Map<String, Map<String, Integer>> subscriptions = new HashMap<>();
        for (String receiver : placement.keySet()) {
            Map<String, Integer> wants = new HashMap<>();
            for (TrackInfo t : tracks.values()) {
                if (!t.publisher().equals(receiver) && publisherOf.containsKey(t.trackId())) wants.put(t.trackId(), t.topLayer());
            }
            subscriptions.put(receiver, wants);
        }
        Map<String, SfuNode> publishedAt = new HashMap<>();
        for (Map.Entry<String, String> r : releasing.entrySet()) {
            String region = regionOf.apply(r.getValue());
            if (region == null || !publisherOf.containsValue(r.getKey())) continue; // old SFU dead, or no tracks
            publishedAt.put(r.getKey(), new SfuNode(r.getValue(), region));
            live.add(r.getValue());
        }
        Set<String> drainingLive = new java.util.HashSet<>(draining);
        drainingLive.retainAll(live);
        return new PlanInput(nodes, publisherOf, subscriptions, live, drainingLive, publishedAt);
    }

    /** Every pod on a plan's hops (origins included). */
    public static Set<String> pods(dev.parley.controller.cascade.DistributionPlan plan) {
        Set<String> out = new java.util.HashSet<>();
        for (var t : plan.tracks().values()) {
            out.add(t.origin());
            for (var r : t.relays()) {
                out.add(r.from());
                out.add(r.to());
            }
        }
        return out;
    }
}
