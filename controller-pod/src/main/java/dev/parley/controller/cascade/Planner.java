package dev.parley.controller.cascade;

import dev.parley.controller.cascade.DistributionPlan.TrackPlan;
import dev.parley.controller.cascade.Relay.PathState;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Makes a meeting's next {@link DistributionPlan} from the previous one and what the owner knows now
 * ({@link PlanInput}). Pure: no clock, no I/O; the owner calls it on every placement or subscription change and
 * applies the difference to the SFUs.
 *
 * <p>Rules, per published track:
 * <ul>
 *   <li>The origin is the SFU carrying the publisher. Only SFUs with a receiver of the track (other than the
 *       origin, which forwards locally) get a hop, and a hop carries the union of the layers wanted behind it.</li>
 *   <li>SFUs in the origin's region get the track straight from the origin. Each other region gets it once, at its
 *       hub (the previous hub while it still has receivers, else the first pod by name), and the hub feeds the
 *       region's other SFUs: inter-region traffic is one copy per needed layer per region. A draining SFU is never
 *       a hub: while receivers remain there it is fed straight from the origin, and the region moves to a new hub
 *       make-before-break.</li>
 *   <li>Make-before-break: when an SFU's parent changes and its old parent is alive, the old hop stays ACTIVE and the
 *       new one is PREPARING until {@link #ready} switches them at once; the old path keeps its feeders meanwhile.
 *       A dead parent's hops are cut at once.</li>
 *   <li>A hop with nobody behind it stays, idle and empty, for the grace, then goes.</li>
 * </ul>
 * Invariants (PlannerPropertyTest): ACTIVE hops form a tree rooted at the origin (no loop, at most one ACTIVE hop
 * into any SFU, every ACTIVE hop fed); every SFU with a receiver is on it with the layers its receivers want; no
 * hop without a receiver behind it outlives the grace.
 */
public final class Planner {
    private final long graceMillis;

    public Planner(long graceMillis) {
        this.graceMillis = graceMillis;
    }

    public DistributionPlan plan(DistributionPlan previous, PlanInput in, long nowMillis) {
        Map<String, TrackPlan> out = new TreeMap<>();
        for (Map.Entry<String, String> e : in.publisherOf().entrySet()) {
            SfuNode origin = in.originOf(e.getValue()); // a publisher mid-move: where its media still enters
            if (origin == null || !in.liveSfus().contains(origin.pod())) continue;
            TrackPlan before = previous.track(e.getKey());
            if (before != null && !before.origin().equals(origin.pod())) before = null; // the publisher moved: a new tree
            out.put(e.getKey(), new TrackPlanning(e.getKey(), e.getValue(), origin, before, in, nowMillis).plan());
        }
        return new DistributionPlan(out);
    }

    /**
     * The PREPARING hop {@code from → to} is ready: it becomes the ACTIVE hop into {@code to}, the old one goes.
     * Layers upstream of the old hop are recomputed by the next {@link #plan}, which the owner calls right after.
     */
    public static DistributionPlan ready(DistributionPlan plan, String trackId, String from, String to) {
        TrackPlan t = plan.track(trackId);
        if (t == null) return plan;
        Relay preparing = null;
        for (Relay r : t.relays()) {
            if (r.from().equals(from) && r.to().equals(to) && r.state() == PathState.PREPARING) preparing = r;
        }
        if (preparing == null) return plan;
        List<Relay> relays = new ArrayList<>();
        for (Relay r : t.relays()) {
            if (r.to().equals(to) && r.state() == PathState.ACTIVE) continue;
            relays.add(r == preparing ? new Relay(trackId, from, to, r.layers(), PathState.ACTIVE, -1) : r);
        }
        Map<String, TrackPlan> tracks = new TreeMap<>(plan.tracks());
        tracks.put(trackId, new TrackPlan(trackId, t.origin(), relays));
        return new DistributionPlan(tracks);
    }

    /** The planning of one track: local needs, the desired tree, then the merge with the previous hops. */
    private final class TrackPlanning {
        private final String trackId;
        private final SfuNode origin;
        private final TrackPlan before;
        private final PlanInput in;
        private final long now;
        /** pod → layers its own receivers want (never the origin). */
        private final Map<String, SortedSet<Integer>> need = new TreeMap<>();
        private final Map<String, String> region = new HashMap<>();
        /** to → hop, for the ACTIVE and the PREPARING hops of the new plan. */
        private final Map<String, Relay> active = new LinkedHashMap<>();
        private final Map<String, Relay> preparing = new LinkedHashMap<>();

        TrackPlanning(String trackId, String publisher, SfuNode origin, TrackPlan before, PlanInput in, long now) {
            this.trackId = trackId;
            this.origin = origin;
            this.before = before;
            this.in = in;
            this.now = now;
            SfuNode placed = in.placement().get(publisher);
            for (Map.Entry<String, Map<String, Integer>> s : in.subscriptions().entrySet()) {
                Integer layer = s.getValue().get(trackId);
                SfuNode at = in.placement().get(s.getKey());
                // the publisher's own SFU (mid-move: where its new connection publishes) is never fed by relay
                if (layer == null || at == null || s.getKey().equals(publisher) || at.pod().equals(origin.pod())
                        || (placed != null && at.pod().equals(placed.pod())) || !live(at.pod())) {
                    continue;
                }
                need.computeIfAbsent(at.pod(), k -> new TreeSet<>()).add(layer);
                region.put(at.pod(), at.region());
            }
        }

        TrackPlan plan() {
            Map<String, String> parent = desiredParents();
            for (Map.Entry<String, String> e : parent.entrySet()) place(e.getKey(), e.getValue());
            keepIdle();
            return new TrackPlan(trackId, origin.pod(), withLayers());
        }

        private boolean live(String pod) {
            return in.liveSfus().contains(pod);
        }

        private Relay previousActiveInto(String pod) {
            return before == null ? null : before.activeInto(pod);
        }

        /** The desired tree: same region from the origin, other regions through one hub each. */
        private Map<String, String> desiredParents() {
            Map<String, List<String>> byRegion = new TreeMap<>();
            for (String pod : need.keySet()) byRegion.computeIfAbsent(region.get(pod), k -> new ArrayList<>()).add(pod);
            Map<String, String> parent = new TreeMap<>();
            for (Map.Entry<String, List<String>> r : byRegion.entrySet()) {
                if (r.getKey().equals(origin.region())) {
                    for (String pod : r.getValue()) parent.put(pod, origin.pod());
                    continue;
                }
                List<String> pods = new ArrayList<>();
                for (String pod : r.getValue()) {
                    // a draining SFU is nobody's hub: its own receivers get the track straight from the origin
                    if (in.drainingSfus().contains(pod)) parent.put(pod, origin.pod());
                    else pods.add(pod);
                }
                if (pods.isEmpty()) continue;
                String hub = pods.get(0); // sorted: need is a TreeMap
                for (String pod : pods) {
                    Relay prev = previousActiveInto(pod);
                    if (prev != null && prev.from().equals(origin.pod())) hub = pod; // keep the hub while it has receivers
                }
                for (String pod : pods) parent.put(pod, pod.equals(hub) ? origin.pod() : hub);
            }
            return parent;
        }

        /** Puts the hop into {@code pod} from {@code from}: directly, or make-before-break beside the old one. */
        private void place(String pod, String from) {
            Relay fed = active.get(pod);
            if (fed != null) { // already kept as a feeder of an old path: switch it too, make-before-break
                if (!fed.from().equals(from)) preparing.put(pod, hop(from, pod, PathState.PREPARING));
                return;
            }
            Relay old = previousActiveInto(pod);
            if (old == null || old.from().equals(from) || !live(old.from()) || !feed(old.from(), new HashSet<>())) {
                active.put(pod, hop(from, pod, PathState.ACTIVE));
                return;
            }
            active.put(pod, hop(old.from(), pod, PathState.ACTIVE));
            preparing.put(pod, hop(from, pod, PathState.PREPARING));
        }

        /**
         * Makes sure {@code pod} still receives the track (it sends on an old ACTIVE hop): the origin does; a pod on
         * the new tree does; else its previous ACTIVE hop is kept, recursively. False when that chain is broken.
         */
        private boolean feed(String pod, Set<String> visiting) {
            if (pod.equals(origin.pod()) || active.containsKey(pod)) return true;
            if (!visiting.add(pod)) return false; // a loop in the old hops: never keep it
            Relay old = previousActiveInto(pod);
            if (old == null || !live(old.from()) || !feed(old.from(), visiting)) return false;
            active.put(pod, hop(old.from(), pod, PathState.ACTIVE));
            return true;
        }

        /** Previous hops into pods the plan no longer needs stay idle for the grace (fed ones only). */
        private void keepIdle() {
            if (before == null) return;
            boolean added = true;
            while (added) {
                added = false;
                for (Relay r : before.relays()) {
                    if (r.state() != PathState.ACTIVE || active.containsKey(r.to()) || !live(r.to()) || !live(r.from())) continue;
                    long since = r.idle() ? r.idleSinceMillis() : now;
                    if (now - since >= graceMillis) continue;
                    if (!r.from().equals(origin.pod()) && !active.containsKey(r.from())) continue;
                    active.put(r.to(), new Relay(trackId, r.from(), r.to(), new TreeSet<>(), PathState.ACTIVE, since));
                    added = true;
                }
            }
        }

        private Relay hop(String from, String to, PathState state) {
            return new Relay(trackId, from, to, new TreeSet<>(), state, -1);
        }

        /** Each hop carries what its destination's receivers want plus what every hop out of it carries. */
        private List<Relay> withLayers() {
            Map<String, SortedSet<Integer>> memo = new HashMap<>();
            List<Relay> out = new ArrayList<>();
            for (Relay r : active.values()) out.add(r.idle() ? r : withLayers(r, memo));
            for (Relay r : preparing.values()) out.add(withLayers(r, memo));
            return out;
        }

        private Relay withLayers(Relay r, Map<String, SortedSet<Integer>> memo) {
            return new Relay(trackId, r.from(), r.to(), behind(r.to(), memo, new HashSet<>()), r.state(), -1);
        }

        private SortedSet<Integer> behind(String pod, Map<String, SortedSet<Integer>> memo, Set<String> visiting) {
            SortedSet<Integer> known = memo.get(pod);
            if (known != null) return known;
            if (!visiting.add(pod)) throw new IllegalStateException("relay loop through " + pod + " for track " + trackId);
            SortedSet<Integer> layers = new TreeSet<>(need.getOrDefault(pod, new TreeSet<>()));
            for (Relay r : active.values()) if (r.from().equals(pod) && !r.idle()) layers.addAll(behind(r.to(), memo, visiting));
            for (Relay r : preparing.values()) if (r.from().equals(pod)) layers.addAll(behind(r.to(), memo, visiting));
            memo.put(pod, layers);
            return layers;
        }
    }
}
