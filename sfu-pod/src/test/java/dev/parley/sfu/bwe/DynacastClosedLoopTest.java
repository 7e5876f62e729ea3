package dev.parley.sfu.bwe;

import dev.parley.sfu.allocation.DynacastController;
import dev.parley.sfu.allocation.DynacastDecision;
import dev.parley.sfu.quality.LinkEmulator;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One publisher (audio + 3-layer camera), two subscribers on their own shaped links, each with its own
 * estimator and allocator, and the meeting's dynacast controller — the browser scenario in
 * simulated time: the constrained subscriber gets the low layer while the unconstrained one keeps the high
 * one; once nobody needs the high layers the publisher is told to stop them and its upload falls; when a
 * subscriber can take them again they are resumed.
 */
class DynacastClosedLoopTest {

    private final DynacastController dynacast = new DynacastController(5_000);
    private final List<String> decisions = new ArrayList<>();

    /** Runs both subscribers in lockstep, feeding dynacast every 500 ms like the SFU's timer would. */
    private void run(long ms, Sub... subs) {
        for (long t = 0; t < ms; t += 500) {
            long now = 0;
            for (Sub s : subs) {
                s.sim.run(500);
                now = s.sim.nowMs();
                dynacast.onAllocation(s.id, s.sender.last);
            }
            for (DynacastDecision d : dynacast.evaluate(now)) {
                decisions.add(now + ":" + d.maxSpatialLayer() + " paused=" + d.paused() + " resumed=" + d.resumed());
            }
        }
    }

    /** What the publisher uploads for its camera: every layer it is told to keep, at full frame rate. */
    private long publisherCameraBps() {
        long bps = 0;
        for (int s = 0; s <= dynacast.activeMax("cam"); s++) {
            bps += SimulatedSubscriber.BPS[s][2];
        }
        return bps;
    }

    private record Sub(String id, SimulatedSubscriber sender, ClosedLoopSimulation sim) {
        static Sub on(String id, long capacityBps, long seed) {
            SimulatedSubscriber sender = new SimulatedSubscriber();
            LinkEmulator link = new LinkEmulator(capacityBps, 20_000, 400_000, 0, seed);
            return new Sub(id, sender, new ClosedLoopSimulation(BweConfig.defaults(), link, sender, true));
        }
    }

    @Test
    void highLayersStopWhenNobodyNeedsThemAndResumeWhenSomeoneDoes() {
        dynacast.addTrack("cam", 3);
        Sub alice = Sub.on("alice", 300_000, 1);   // constrained
        Sub bob = Sub.on("bob", 10_000_000, 2);    // unconstrained
        run(20_000, alice, bob);
        assertThat(alice.sender().spatialAt(20_000)).as(alice.sender().trace()).isZero();
        assertThat(bob.sender().spatialAt(20_000)).as(bob.sender().trace()).isEqualTo(2);
        assertThat(dynacast.activeMax("cam")).as("bob still needs 720p: " + decisions).isEqualTo(2);
        long before = publisherCameraBps();

        // bob leaves: only alice's 180p is needed; after the 5 s hold the publisher stops 360p and 720p
        dynacast.removeSubscriber("bob");
        run(4_000, alice);
        assertThat(dynacast.activeMax("cam")).as("held: " + decisions).isEqualTo(2);
        run(2_000, alice);
        assertThat(dynacast.activeMax("cam")).as(decisions.toString()).isZero();
        assertThat(decisions).last().asString().endsWith("0 paused=[1, 2] resumed=[]");
        assertThat(publisherCameraBps()).isLessThan(before / 10);

        // alice's link recovers: her allocator climbs, and the publisher resumes the layers at once
        alice.sim().link.setCapacityBps(10_000_000);
        run(15_000, alice);
        assertThat(alice.sender().spatialAt(alice.sim().nowMs())).as(alice.sender().trace()).isEqualTo(2);
        assertThat(dynacast.activeMax("cam")).as(decisions.toString()).isEqualTo(2);
        assertThat(decisions).hasSize(2);
        assertThat(decisions.get(1)).endsWith("2 paused=[] resumed=[1, 2]");
    }
}
