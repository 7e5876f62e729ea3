package dev.parley.controller.relay;

import dev.parley.controller.cascade.DistributionPlan;
import dev.parley.controller.cascade.PlanInput;
import dev.parley.controller.cascade.Planner;
import dev.parley.controller.cascade.Relay;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

class PlanInputsTest {
    private static final Map<String, TrackInfo> TRACKS = Map.of(
            "a:0", new TrackInfo("a:0", "a", "audio", 1),
            "a:1", new TrackInfo("a:1", "a", "video", 3),
            "gone:1", new TrackInfo("gone:1", "gone", "video", 3));

    @Test
    void everyPlacedParticipantWantsEveryOtherTrackAtItsTopLayer() {
        PlanInput in = PlanInputs.of(Map.of("a", "sfu-1", "b", "sfu-2"), TRACKS, pod -> "sfu-1".equals(pod) ? "eu" : "us", java.util.Set.of());
        assertThat(in.publisherOf()).containsOnlyKeys("a:0", "a:1"); // a publisher no longer placed publishes nothing
        assertThat(in.subscriptions().get("b")).containsEntry("a:0", 0).containsEntry("a:1", 2).hasSize(2);
        assertThat(in.subscriptions().get("a")).isEmpty();
        assertThat(in.liveSfus()).containsExactlyInAnyOrder("sfu-1", "sfu-2");
    }

    @Test
    void aPodMissingFromTheRegistryIsNotLive() {
        PlanInput in = PlanInputs.of(Map.of("a", "sfu-1", "b", "sfu-gone"), TRACKS, pod -> "sfu-1".equals(pod) ? "eu" : null, java.util.Set.of("sfu-gone"));
        assertThat(in.liveSfus()).containsExactly("sfu-1");
        DistributionPlan plan = new Planner(1000).plan(DistributionPlan.EMPTY, in, 0);
        assertThat(plan.track("a:1").relays()).isEmpty();
    }

    @Test
    void onePlacementPerSfuMeansNoRelay() {
        PlanInput in = PlanInputs.of(Map.of("a", "sfu-1", "b", "sfu-1"), TRACKS, pod -> "eu", java.util.Set.of());
        DistributionPlan plan = new Planner(1000).plan(DistributionPlan.EMPTY, in, 0);
        assertThat(plan.tracks().values()).allSatisfy(t -> assertThat(t.relays()).isEmpty());
    }

    @Test
    void aHopCarriesLayersUpToTheHighestWanted() {
        Relay hop = new Relay("a:1", "sfu-1", "sfu-2", new TreeSet<>(List.of(1)), Relay.PathState.ACTIVE, -1);
        assertThat(RelayApplier.layersToSend(hop, TRACKS.get("a:1"))).containsExactly(0, 1);
        Relay audio = new Relay("a:0", "sfu-1", "sfu-2", new TreeSet<>(List.of(0)), Relay.PathState.ACTIVE, -1);
        assertThat(RelayApplier.layersToSend(audio, TRACKS.get("a:0"))).containsExactly(0);
    }

    @Test
    void relayIdsDifferPerEpochAndHop() {
        Relay hop = new Relay("a:1", "sfu-1", "sfu-2", new TreeSet<>(List.of(2)), Relay.PathState.ACTIVE, -1);
        assertThat(RelayApplier.relayId("m", 5, hop)).isEqualTo(RelayApplier.relayId("m", 5, hop))
                .isNotEqualTo(RelayApplier.relayId("m", 6, hop));
    }

    @Test
    void aPodEveryoneLeftStaysLiveWhileOnThePlanSoItsHopIdlesForTheGrace() {
        Planner planner = new Planner(1000);
        java.util.function.Function<String, String> regions = pod -> "sfu-1".equals(pod) ? "eu" : "us";
        DistributionPlan plan = planner.plan(DistributionPlan.EMPTY,
                PlanInputs.of(Map.of("a", "sfu-1", "b", "sfu-2"), TRACKS, regions, java.util.Set.of()), 0);
        assertThat(plan.track("a:1").relays()).hasSize(1);
        plan = planner.plan(plan, PlanInputs.of(Map.of("a", "sfu-1"), TRACKS, regions, PlanInputs.pods(plan)), 10);
        assertThat(plan.track("a:1").relays()).singleElement().satisfies(r -> assertThat(r.idle()).isTrue());
        plan = planner.plan(plan, PlanInputs.of(Map.of("a", "sfu-1"), TRACKS, regions, PlanInputs.pods(plan)), 1010);
        assertThat(plan.track("a:1").relays()).isEmpty();
    }

    /**
     * A publisher moved to sfu-3 (drain of its origin sfu-1) whose new connection is not up yet: its media still enters
     * at sfu-1, so its tracks keep their origin there and the far receiver keeps its hop from sfu-1; nothing is relayed
     * into sfu-3, where its own new connection will publish. Once released, the origin is sfu-3. Fails without
     * {@code releasing}: the origin moved at once to sfu-3, which had nothing to send yet.
     */
    @Test
    void aPublisherMidMoveKeepsItsOriginWhereItsMediaStillEnters() {
        Map<String, String> placement = Map.of("a", "sfu-3", "b", "sfu-2", "c", "sfu-3");
        java.util.function.Function<String, String> region = pod -> "sfu-2".equals(pod) ? "us" : "eu";
        PlanInput moving = PlanInputs.of(placement, TRACKS, region, java.util.Set.of("sfu-1", "sfu-2"), java.util.Set.of("sfu-1"),
                Map.of("a", "sfu-1"));
        DistributionPlan plan = new Planner(1000).plan(DistributionPlan.EMPTY, moving, 0);
        assertThat(plan.track("a:0").origin()).isEqualTo("sfu-1");
        assertThat(plan.track("a:0").relays()).as("to the far receiver only, not into the publisher's new SFU")
                .singleElement().satisfies(r -> assertThat(r.from() + ">" + r.to()).isEqualTo("sfu-1>sfu-2"));
        PlanInput released = PlanInputs.of(placement, TRACKS, region, java.util.Set.of("sfu-1", "sfu-2"), java.util.Set.of("sfu-1"),
                Map.of());
        DistributionPlan after = new Planner(1000).plan(plan, released, 0);
        assertThat(after.track("a:0").origin()).isEqualTo("sfu-3");
        assertThat(after.track("a:0").relays()).singleElement().satisfies(r -> assertThat(r.from() + ">" + r.to()).isEqualTo("sfu-3>sfu-2"));
    }
}
