package dev.parley.controller.cascade;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A meeting's media distribution between SFUs: per published track its origin SFU (where the publisher is
 * placed) and the relay hops from there. Immutable; {@link Planner} makes the next one from the previous one.
 */
public record DistributionPlan(Map<String, TrackPlan> tracks) {
    public static final DistributionPlan EMPTY = new DistributionPlan(Map.of());

    public DistributionPlan {
        tracks = java.util.Collections.unmodifiableMap(new TreeMap<>(tracks));
    }

    /** One track: its origin and its hops (at most one ACTIVE hop into any SFU). */
    public record TrackPlan(String trackId, String origin, List<Relay> relays) {
        public TrackPlan {
            relays = List.copyOf(relays);
        }

        /** The hop that carries media into {@code pod}, or null (the origin, or an SFU not on the tree). */
        public Relay activeInto(String pod) {
            for (Relay r : relays) if (r.to().equals(pod) && r.state() == Relay.PathState.ACTIVE) return r;
            return null;
        }
    }

    public TrackPlan track(String trackId) {
        return tracks.get(trackId);
    }
}
