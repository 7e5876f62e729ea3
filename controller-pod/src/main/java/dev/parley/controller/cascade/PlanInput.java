package dev.parley.controller.cascade;

import java.util.Map;
import java.util.Set;

/**
 * What the owner knows of one meeting when it plans: where each participant is placed, which participant
 * publishes each track, which layer each receiver wants of each track (simulcast layer or SVC spatial layer index;
 * 0 = lowest), and which SFUs are alive. Pure data: the planner reads nothing else.
 *
 * @param placement     participant id → the SFU carrying it
 * @param publisherOf   track id → publishing participant id
 * @param subscriptions receiver participant id → (track id → wanted layer)
 * @param liveSfus      pods that are alive (a dead pod's paths are cut at once, no make-before-break)
 * @param drainingSfus  live pods being drained: never a region's hub, fed straight from the origin while receivers
 *                      remain there (their other hops move make-before-break)
 * @param publishedAt   publisher id → the SFU its media still enters when that is not its placement: it moved to
 *                      another SFU whose connection is not up yet, so its tracks' origin stays where the media is
 */
public record PlanInput(Map<String, SfuNode> placement, Map<String, String> publisherOf,
                        Map<String, Map<String, Integer>> subscriptions, Set<String> liveSfus, Set<String> drainingSfus,
                        Map<String, SfuNode> publishedAt) {
    public PlanInput {
        publishedAt = Map.copyOf(publishedAt);
        placement = Map.copyOf(placement);
        publisherOf = Map.copyOf(publisherOf);
        subscriptions = Map.copyOf(subscriptions);
        liveSfus = Set.copyOf(liveSfus);
        drainingSfus = Set.copyOf(drainingSfus);
    }

    /** Nobody mid-move. */
    public PlanInput(Map<String, SfuNode> placement, Map<String, String> publisherOf,
                     Map<String, Map<String, Integer>> subscriptions, Set<String> liveSfus, Set<String> drainingSfus) {
        this(placement, publisherOf, subscriptions, liveSfus, drainingSfus, Map.of());
    }

    /** Where a publisher's media enters: where it still publishes mid-move, else its placement. */
    public SfuNode originOf(String publisher) {
        SfuNode at = publishedAt.get(publisher);
        return at != null ? at : placement.get(publisher);
    }

    /** Nothing draining. */
    public PlanInput(Map<String, SfuNode> placement, Map<String, String> publisherOf,
                     Map<String, Map<String, Integer>> subscriptions, Set<String> liveSfus) {
        this(placement, publisherOf, subscriptions, liveSfus, Set.of());
    }
}
