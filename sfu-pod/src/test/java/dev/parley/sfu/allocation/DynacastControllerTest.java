package dev.parley.sfu.allocation;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class DynacastControllerTest {

    private static final List<SubscribedTrack> TRACKS = List.of(Layers.cam("pub-cam", 1280, 720));

    @Test
    void publisherStopsTheHighLayerWhenNobodyNeedsItAndResumesWhenSomeoneDoes() {
        DynacastController dynacast = new DynacastController(5_000);
        dynacast.addTrack("pub-cam", 3);
        SubscriberAllocator alice = new SubscriberAllocator(1_000);
        SubscriberAllocator bob = new SubscriberAllocator(1_000);

        // both subscribers constrained to the low layer
        dynacast.onAllocation("alice", alice.allocate(0, 300_000, TRACKS));
        dynacast.onAllocation("bob", bob.allocate(0, 250_000, TRACKS));
        assertThat(dynacast.evaluate(0)).as("hold: not yet").isEmpty();
        assertThat(dynacast.evaluate(4_000)).isEmpty();
        List<DynacastDecision> paused = dynacast.evaluate(5_000);
        assertThat(paused).containsExactly(new DynacastDecision("pub-cam", 0, List.of(1, 2), List.of()));
        assertThat(dynacast.activeMax("pub-cam")).isZero();

        // alice's network recovers: her allocator asks for 720p, the publisher must resume it at once
        alice.allocate(6_000, 5_000_000, TRACKS);
        dynacast.onAllocation("alice", alice.allocate(7_100, 5_000_000, TRACKS));
        assertThat(dynacast.evaluate(7_100))
                .containsExactly(new DynacastDecision("pub-cam", 2, List.of(), List.of(1, 2)));
    }

    @Test
    void aShortDipDoesNotMakeThePublisherFlap() {
        DynacastController dynacast = new DynacastController(5_000);
        dynacast.addTrack("pub-cam", 3);
        SubscriberAllocator alice = new SubscriberAllocator(1_000);
        dynacast.onAllocation("alice", alice.allocate(0, 5_000_000, TRACKS));
        assertThat(dynacast.evaluate(0)).isEmpty();
        dynacast.onAllocation("alice", alice.allocate(1_000, 300_000, TRACKS)); // dip
        assertThat(dynacast.evaluate(1_000)).isEmpty();
        alice.allocate(2_000, 5_000_000, TRACKS);
        dynacast.onAllocation("alice", alice.allocate(3_100, 5_000_000, TRACKS)); // back up
        assertThat(dynacast.evaluate(3_100)).isEmpty();
        assertThat(dynacast.evaluate(10_000)).as("never paused").isEmpty();
        assertThat(dynacast.activeMax("pub-cam")).isEqualTo(2);
    }

    @Test
    void noSubscribersPausesEverythingAfterTheHold() {
        DynacastController dynacast = new DynacastController(2_000);
        dynacast.addTrack("pub-cam", 3);
        dynacast.onAllocation("alice", new SubscriberAllocator().allocate(0, 5_000_000, TRACKS));
        dynacast.evaluate(0);
        dynacast.removeSubscriber("alice");
        assertThat(dynacast.evaluate(1_000)).isEmpty();
        assertThat(dynacast.evaluate(3_000))
                .containsExactly(new DynacastDecision("pub-cam", -1, List.of(0, 1, 2), List.of()));
    }

    @Test
    void tileSizeNeedsAndTheLowestLayerFloor() {
        // the SFU's setting: layer 0 stays on even with nobody watching (a new subscriber's first frame needs no restart)
        DynacastController dynacast = new DynacastController(2_000, 0);
        dynacast.addTrack("pub-cam", 3);
        dynacast.onNeeds("recorder", java.util.Map.of("pub-cam", 1));
        assertThat(dynacast.evaluate(0)).isEmpty();
        assertThat(dynacast.evaluate(2_000)).containsExactly(new DynacastDecision("pub-cam", 1, List.of(2), List.of()));
        dynacast.removeSubscriber("recorder");
        assertThat(dynacast.evaluate(2_500)).isEmpty();
        assertThat(dynacast.evaluate(4_500)).as("never below the floor")
                .containsExactly(new DynacastDecision("pub-cam", 0, List.of(1), List.of()));
        assertThat(dynacast.evaluate(9_000)).isEmpty();
        // a tile-size subscriber needing the top layer resumes both at once
        dynacast.onNeeds("viewer", java.util.Map.of("pub-cam", 2));
        assertThat(dynacast.evaluate(9_100)).containsExactly(new DynacastDecision("pub-cam", 2, List.of(), List.of(1, 2)));
        assertThat(dynacast.layerCount("pub-cam")).isEqualTo(3);
    }
}
