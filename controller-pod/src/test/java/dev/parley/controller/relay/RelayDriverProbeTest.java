package dev.parley.controller.relay;

import dev.parley.controller.cascade.DistributionPlan;
import dev.parley.controller.cascade.Relay;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Whom the relay driver probes. A pod taken for down leaves every plan and every applied relay (the planner cuts its
 * hops), so it must be probed for being down, or a live SFU once taken for dead stays dead (bench/large "Where it
 * broke" 4). Fails without the down rule of {@link RelayDriver#probeTargets}: sfu-b is not probed.
 */
class RelayDriverProbeTest {
    @Test
    void podsTakenForDownAreProbedWhileRegisteredThoughNoPlanGoesThroughThem() {
        MeetingRelays m = new MeetingRelays(7);
        Relay hop = new Relay("t1", "sfu-a", "sfu-c", new TreeSet<>(List.of(0)), Relay.PathState.ACTIVE, -1);
        m.plan = new DistributionPlan(Map.of("t1", new DistributionPlan.TrackPlan("t1", "sfu-a", List.of(hop))));
        m.applied.put(AppliedRelay.key("t2", "sfu-d", "sfu-a"), new AppliedRelay("r-2", "t2", "sfu-d", "sfu-a", List.of(0), 7));

        Set<String> probed = RelayDriver.probeTargets(List.of(m), Set.of("sfu-b", "sfu-gone"),
                Set.of("sfu-a", "sfu-b", "sfu-c", "sfu-d"));

        assertThat(probed).as("plan and applied relays, plus sfu-b: down but registered; not sfu-gone (left the registry)")
                .containsExactlyInAnyOrder("sfu-a", "sfu-b", "sfu-c", "sfu-d");
    }
}
