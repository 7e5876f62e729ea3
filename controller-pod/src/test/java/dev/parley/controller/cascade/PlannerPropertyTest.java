package dev.parley.controller.cascade;

import dev.parley.controller.cascade.DistributionPlan.TrackPlan;
import dev.parley.controller.cascade.Relay.PathState;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Random meetings (joins, leaves, moves between SFUs, publishing, subscriptions and layer changes, SFUs dying and
 * coming back, time passing, new paths becoming ready at random moments) replanned after every step; every plan
 * must hold the planner's invariants. Each seed is reproducible: a failure names it.
 */
class PlannerPropertyTest {
    private static final long GRACE = 5_000;
    private static final Map<String, String> REGION_OF = Map.of("eu-1", "eu", "eu-2", "eu", "us-1", "us", "us-2", "us", "us-3", "us", "ap-1", "ap");
    private static final List<String> PODS = List.copyOf(new TreeSet<>(REGION_OF.keySet()));

    /** The test's own model of a meeting, turned into a PlanInput at every step. */
    private static final class World {
        final Map<String, SfuNode> placement = new TreeMap<>();
        final Map<String, String> publisherOf = new TreeMap<>();
        final Map<String, Map<String, Integer>> subs = new TreeMap<>();
        final Set<String> live = new TreeSet<>(PODS);

        PlanInput input() {
            Map<String, Map<String, Integer>> s = new HashMap<>();
            subs.forEach((k, v) -> s.put(k, Map.copyOf(v)));
            return new PlanInput(placement, publisherOf, s, live);
        }

        /** pod → layers receivers placed there want of {@code track} (origin and publisher excluded, live pods). */
        Map<String, Set<Integer>> need(String track, String origin) {
            Map<String, Set<Integer>> need = new HashMap<>();
            String publisher = publisherOf.get(track);
            subs.forEach((pid, m) -> {
                Integer layer = m.get(track);
                SfuNode at = placement.get(pid);
                if (layer != null && at != null && !pid.equals(publisher) && !at.pod().equals(origin) && live.contains(at.pod())) {
                    need.computeIfAbsent(at.pod(), k -> new HashSet<>()).add(layer);
                }
            });
            return need;
        }
    }

    @Test
    void randomChurnNeverBreaksTheInvariants() {
        for (long seed = 1; seed <= 200; seed++) {
            try {
                run(seed, 150);
            } catch (AssertionError e) {
                fail("seed " + seed + ": " + e.getMessage(), e);
            }
        }
    }

    private static void run(long seed, int steps) {
        Random rnd = new Random(seed);
        Planner planner = new Planner(GRACE);
        World w = new World();
        DistributionPlan plan = DistributionPlan.EMPTY;
        long now = 0;
        Map<String, Long> withoutReceiverSince = new HashMap<>();
        int nextPid = 0;
        for (int step = 0; step < steps; step++) {
            List<String> pids = new ArrayList<>(w.placement.keySet());
            List<String> livePods = new ArrayList<>(w.live);
            switch (rnd.nextInt(10)) {
                case 0, 1 -> {
                    String pod = livePods.get(rnd.nextInt(livePods.size()));
                    w.placement.put("p" + nextPid++, new SfuNode(pod, REGION_OF.get(pod)));
                }
                case 2 -> {
                    if (!pids.isEmpty()) {
                        String p = pids.get(rnd.nextInt(pids.size()));
                        w.placement.remove(p);
                        w.subs.remove(p);
                        w.publisherOf.values().removeIf(p::equals);
                    }
                }
                case 3 -> {
                    if (!pids.isEmpty()) {
                        String pod = livePods.get(rnd.nextInt(livePods.size()));
                        w.placement.put(pids.get(rnd.nextInt(pids.size())), new SfuNode(pod, REGION_OF.get(pod)));
                    }
                }
                case 4 -> {
                    if (!pids.isEmpty()) {
                        String p = pids.get(rnd.nextInt(pids.size()));
                        w.publisherOf.put(p + (rnd.nextBoolean() ? ":cam" : ":mic"), p);
                    }
                }
                case 5, 6 -> {
                    List<String> tracks = new ArrayList<>(w.publisherOf.keySet());
                    if (!pids.isEmpty() && !tracks.isEmpty()) {
                        String r = pids.get(rnd.nextInt(pids.size()));
                        String t = tracks.get(rnd.nextInt(tracks.size()));
                        if (rnd.nextInt(4) == 0) w.subs.getOrDefault(r, new HashMap<>()).remove(t);
                        else w.subs.computeIfAbsent(r, k -> new HashMap<>()).put(t, rnd.nextInt(3));
                    }
                }
                case 7 -> {
                    String pod = PODS.get(rnd.nextInt(PODS.size()));
                    if (w.live.contains(pod) && w.live.size() > 2) w.live.remove(pod);
                    else w.live.add(pod);
                }
                default -> now += rnd.nextInt(4_000);
            }
            plan = planner.plan(plan, w.input(), now);
            check(plan, w, now, withoutReceiverSince);
            // some new paths become ready, at random moments; the owner replans right after a switch
            for (TrackPlan t : plan.tracks().values()) {
                for (Relay r : t.relays()) {
                    if (r.state() == PathState.PREPARING && rnd.nextInt(3) == 0) plan = Planner.ready(plan, t.trackId(), r.from(), r.to());
                }
            }
            plan = planner.plan(plan, w.input(), now);
            check(plan, w, now, withoutReceiverSince);
        }
        // settle: every path ready, the grace over, the same world: the steady plan is minimal
        for (int i = 0; i < 3; i++) {
            for (TrackPlan t : plan.tracks().values()) {
                for (Relay r : t.relays()) if (r.state() == PathState.PREPARING) plan = Planner.ready(plan, t.trackId(), r.from(), r.to());
            }
            now += GRACE + 1;
            plan = planner.plan(plan, w.input(), now);
        }
        checkSteady(plan, w);
    }

    private static void check(DistributionPlan plan, World w, long now, Map<String, Long> withoutReceiverSince) {
        for (TrackPlan t : plan.tracks().values()) {
            String publisher = w.publisherOf.get(t.trackId());
            assertThat(publisher).as("a plan only for published tracks").isNotNull();
            assertThat(t.origin()).as("origin = the publisher's SFU").isEqualTo(w.placement.get(publisher).pod());
            Map<String, Relay> activeInto = new HashMap<>();
            for (Relay r : t.relays()) {
                assertThat(r.from()).as("no self hop").isNotEqualTo(r.to());
                assertThat(w.live).as("hops only between live SFUs").contains(r.from(), r.to());
                if (r.state() == PathState.ACTIVE) {
                    assertThat(activeInto.put(r.to(), r)).as("at most one ACTIVE hop into " + r.to() + " for " + t.trackId()).isNull();
                }
            }
            assertThat(activeInto).as("nothing flows into the origin").doesNotContainKey(t.origin());
            // every ACTIVE hop is fed from the origin, without a loop
            for (String pod : activeInto.keySet()) {
                Set<String> seen = new HashSet<>();
                String at = pod;
                while (!at.equals(t.origin())) {
                    assertThat(seen.add(at)).as("loop through " + at + " for " + t.trackId()).isTrue();
                    Relay in = activeInto.get(at);
                    assertThat(in).as(at + " sends " + t.trackId() + " but receives it from nowhere").isNotNull();
                    at = in.from();
                }
            }
            for (Relay r : t.relays()) {
                if (r.state() == PathState.PREPARING) {
                    assertThat(activeInto).as("a PREPARING hop replaces an ACTIVE one").containsKey(r.to());
                    assertThat(r.from().equals(t.origin()) || activeInto.containsKey(r.from())).as("a new path is fed").isTrue();
                }
            }
            // every receiver's SFU gets its layers over the ACTIVE path
            Map<String, Set<Integer>> need = w.need(t.trackId(), t.origin());
            for (Map.Entry<String, Set<Integer>> n : need.entrySet()) {
                String at = n.getKey();
                while (!at.equals(t.origin())) {
                    Relay in = activeInto.get(at);
                    assertThat(in).as(n.getKey() + " has receivers of " + t.trackId() + " but no path").isNotNull();
                    assertThat(in.layers()).as("layers into " + at).containsAll(n.getValue());
                    at = in.from();
                }
            }
            // a hop carries nothing nobody behind it wants; a hop with nobody behind it goes within the grace
            for (Relay r : t.relays()) {
                Set<Integer> wanted = behind(r.to(), t, need, new HashSet<>());
                assertThat(wanted).as("layers on " + r).containsAll(r.layers());
                String key = t.trackId() + " " + r.from() + ">" + r.to();
                if (wanted.isEmpty()) {
                    long since = withoutReceiverSince.computeIfAbsent(key, k -> now);
                    assertThat(now - since).as(key + " without a receiver behind it").isLessThanOrEqualTo(GRACE);
                } else {
                    withoutReceiverSince.remove(key);
                }
            }
        }
        // no track with receivers on other SFUs is left without a plan (its publisher is placed on a live SFU)
        for (Map.Entry<String, String> p : w.publisherOf.entrySet()) {
            SfuNode at = w.placement.get(p.getValue());
            if (at != null && w.live.contains(at.pod()) && !w.need(p.getKey(), at.pod()).isEmpty()) {
                assertThat(plan.tracks()).as("a plan for " + p.getKey()).containsKey(p.getKey());
            }
        }
    }

    private static Set<Integer> behind(String pod, TrackPlan t, Map<String, Set<Integer>> need, Set<String> seen) {
        Set<Integer> out = new HashSet<>(need.getOrDefault(pod, Set.of()));
        if (!seen.add(pod)) return out;
        for (Relay r : t.relays()) if (r.from().equals(pod)) out.addAll(behind(r.to(), t, need, seen));
        return out;
    }

    /** Once settled: no PREPARING or idle hop, and each region other than the origin's is entered once. */
    private static void checkSteady(DistributionPlan plan, World w) {
        for (TrackPlan t : plan.tracks().values()) {
            Map<String, Integer> entries = new HashMap<>();
            for (Relay r : t.relays()) {
                assertThat(r.state()).as("settled: " + r).isEqualTo(PathState.ACTIVE);
                assertThat(r.idle()).as("settled, grace over: " + r).isFalse();
                String from = REGION_OF.get(r.from()), to = REGION_OF.get(r.to());
                if (!from.equals(to)) entries.merge(to, 1, Integer::sum);
            }
            entries.forEach((region, n) -> assertThat(n).as(t.trackId() + " enters " + region).isEqualTo(1));
            Set<String> onTree = new HashSet<>();
            for (Relay r : t.relays()) onTree.add(r.to());
            assertThat(onTree).as("only SFUs with receivers").isEqualTo(w.need(t.trackId(), t.origin()).keySet());
        }
    }

    @Test
    void aFarRegionIsEnteredOnceAndOnlyTheWantedLayersCrossIt() {
        Planner planner = new Planner(GRACE);
        Map<String, SfuNode> placement = Map.of("pub", new SfuNode("eu-1", "eu"), "a", new SfuNode("us-1", "us"),
            "b", new SfuNode("us-2", "us"), "c", new SfuNode("eu-2", "eu"));
        PlanInput in = new PlanInput(placement, Map.of("pub:cam", "pub"),
            Map.of("a", Map.of("pub:cam", 0), "b", Map.of("pub:cam", 0), "c", Map.of("pub:cam", 2)), Set.copyOf(PODS));
        TrackPlan t = planner.plan(DistributionPlan.EMPTY, in, 0).track("pub:cam");
        assertThat(t.relays()).extracting(r -> r.from() + ">" + r.to() + " " + r.layers())
            .containsExactlyInAnyOrder("eu-1>eu-2 [2]", "eu-1>us-1 [0]", "us-1>us-2 [0]");
    }

    @Test
    void aHubChangeIsMakeBeforeBreak() {
        Planner planner = new Planner(GRACE);
        Map<String, Map<String, Integer>> subs = Map.of("a", Map.of("t", 1), "b", Map.of("t", 1));
        Set<String> live = Set.copyOf(PODS);
        PlanInput first = new PlanInput(Map.of("pub", new SfuNode("eu-1", "eu"), "a", new SfuNode("us-1", "us"),
            "b", new SfuNode("us-2", "us")), Map.of("t", "pub"), subs, live);
        DistributionPlan p = planner.plan(DistributionPlan.EMPTY, first, 0);
        // a moves away from the hub us-1: us-2 must be fed straight from the origin, but keeps its old path until ready
        PlanInput second = new PlanInput(Map.of("pub", new SfuNode("eu-1", "eu"), "a", new SfuNode("eu-2", "eu"),
            "b", new SfuNode("us-2", "us")), Map.of("t", "pub"), subs, live);
        p = planner.plan(p, second, 100);
        assertThat(p.track("t").relays()).extracting(r -> r.from() + ">" + r.to() + " " + r.state())
            .containsExactlyInAnyOrder("eu-1>eu-2 ACTIVE", "eu-1>us-1 ACTIVE", "us-1>us-2 ACTIVE", "eu-1>us-2 PREPARING");
        p = Planner.ready(p, "t", "eu-1", "us-2");
        p = planner.plan(p, second, 200);
        assertThat(p.track("t").relays()).extracting(r -> r.from() + ">" + r.to() + " " + r.state() + (r.idle() ? " idle" : ""))
            .containsExactlyInAnyOrder("eu-1>eu-2 ACTIVE", "eu-1>us-2 ACTIVE", "eu-1>us-1 ACTIVE idle");
        p = planner.plan(p, second, 200 + GRACE);
        assertThat(p.track("t").relays()).extracting(r -> r.from() + ">" + r.to()).containsExactlyInAnyOrder("eu-1>eu-2", "eu-1>us-2");
    }

    @Test
    void aDrainingHubGivesUpItsRegionMakeBeforeBreakAndKeepsItsOwnReceiversFed() {
        Planner planner = new Planner(GRACE);
        Map<String, Map<String, Integer>> subs = Map.of("a", Map.of("t", 1), "b", Map.of("t", 1));
        Map<String, SfuNode> placement = Map.of("pub", new SfuNode("eu-1", "eu"), "a", new SfuNode("us-1", "us"),
            "b", new SfuNode("us-2", "us"));
        Set<String> live = Set.copyOf(PODS);
        DistributionPlan p = planner.plan(DistributionPlan.EMPTY, new PlanInput(placement, Map.of("t", "pub"), subs, live), 0);
        assertThat(p.track("t").relays()).extracting(r -> r.from() + ">" + r.to()).containsExactlyInAnyOrder("eu-1>us-1", "us-1>us-2");
        // us-1 turns DRAINING: us-2 becomes the region's hub, fed from the origin once that path is ready
        PlanInput draining = new PlanInput(placement, Map.of("t", "pub"), subs, live, Set.of("us-1"));
        p = planner.plan(p, draining, 100);
        assertThat(p.track("t").relays()).extracting(r -> r.from() + ">" + r.to() + " " + r.state())
            .containsExactlyInAnyOrder("eu-1>us-1 ACTIVE", "us-1>us-2 ACTIVE", "eu-1>us-2 PREPARING");
        p = Planner.ready(p, "t", "eu-1", "us-2");
        p = planner.plan(p, draining, 200);
        assertThat(p.track("t").relays()).extracting(r -> r.from() + ">" + r.to() + " " + r.state() + (r.idle() ? " idle" : ""))
            .containsExactlyInAnyOrder("eu-1>us-1 ACTIVE", "eu-1>us-2 ACTIVE");
    }
}
