package dev.parley.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.operator.crd.AutoscalingMode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pure models, without Kubernetes or etcd. */
class ModelTest {
    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    static final ScalingPolicy POLICY = new ScalingPolicy(2, 10, AutoscalingMode.Builtin, 0.7, 0.3, 0.5,
            Duration.ZERO, Duration.ofSeconds(300), 2, 1, Duration.ofSeconds(30), Duration.ofSeconds(60));
    final Autoscaler autoscaler = new Autoscaler();

    @Test
    void scaleDownWaitsForTheWholeStabilizationWindowAndStepsByOne() {
        AutoscalerMemory m = new AutoscalerMemory(4, null, null, null, null);
        List<Double> low = List.of(0.1, 0.1, 0.1, 0.1);
        ScaleDecision d = autoscaler.decide(POLICY, low, 4, null, m, T0);
        assertThat(d.target()).isEqualTo(4);
        d = autoscaler.decide(POLICY, low, 4, null, d.memory(), T0.plusSeconds(299));
        assertThat(d.target()).isEqualTo(4);
        assertThat(d.reason()).contains("stabilizing");
        // a blip above the low threshold restarts the window
        ScaleDecision blip = autoscaler.decide(POLICY, List.of(0.4, 0.4, 0.4, 0.4), 4, null, d.memory(), T0.plusSeconds(299));
        assertThat(blip.memory().lowSince()).isNull();
        d = autoscaler.decide(POLICY, low, 4, null, d.memory(), T0.plusSeconds(300));
        assertThat(d.direction()).isEqualTo(ScaleDecision.Direction.DOWN);
        assertThat(d.target()).isEqualTo(3);
    }

    @Test
    void scaleUpIsLimitedByStepMaxAndCooldown() {
        AutoscalerMemory m = new AutoscalerMemory(2, null, null, null, null);
        ScaleDecision d = autoscaler.decide(POLICY, List.of(1.5, 1.5), 2, null, m, T0);
        assertThat(d.target()).isEqualTo(4); // ideal 6, step 2
        d = autoscaler.decide(POLICY, List.of(1.5, 1.5, 1.5, 1.5), 4, null, d.memory(), T0.plusSeconds(10));
        assertThat(d.target()).isEqualTo(4);
        assertThat(d.reason()).contains("cooldown");
        d = autoscaler.decide(POLICY, List.of(1.5, 1.5, 1.5, 1.5), 4, null, d.memory(), T0.plusSeconds(31));
        assertThat(d.target()).isEqualTo(6);
    }

    @Test
    void externalModeFollowsSpecReplicasClamped() {
        ScalingPolicy ext = new ScalingPolicy(2, 5, AutoscalingMode.External, 0.7, 0.3, 0.5, Duration.ZERO,
                Duration.ZERO, 1, 1, Duration.ZERO, Duration.ZERO);
        assertThat(autoscaler.decide(ext, List.of(2.0), 3, 9, AutoscalerMemory.EMPTY, T0).target()).isEqualTo(5);
        assertThat(autoscaler.decide(ext, List.of(2.0), 3, 1, AutoscalerMemory.EMPTY, T0).target()).isEqualTo(2);
    }

    @Test
    void drainNeverReachesCleanupWhileConnectionsRemainBeforeTheTimeout() {
        DrainModel m = new DrainModel();
        DrainState s = new DrainState(DrainPhase.MIGRATING, T0, T0, "ScaleDown", 100);
        PodLoad busy = PodLoad.sfu(PodLoad.DRAINING, 0, 0, 0, 4, 0);
        assertThat(m.next(s, busy, 30, T0.plusSeconds(29)).next()).isEqualTo(DrainPhase.MIGRATING);
        DrainModel.Step grace = m.next(s, busy, 30, T0.plusSeconds(30));
        assertThat(grace.next()).isEqualTo(DrainPhase.GRACE);
        DrainState g = new DrainState(DrainPhase.GRACE, T0, T0.plusSeconds(30), "ScaleDown", 100);
        assertThat(m.next(g, busy, 30, T0.plusSeconds(99)).next()).isEqualTo(DrainPhase.GRACE);
        DrainModel.Step end = m.next(g, busy, 30, T0.plusSeconds(100));
        assertThat(end.next()).isEqualTo(DrainPhase.CLEANUP);
        assertThat(end.outcome()).isEqualTo(DrainModel.Outcome.TIMEOUT);
        assertThat(m.next(g, PodLoad.sfu(PodLoad.DRAINING, 0, 0, 0, 0, 0), 30, T0.plusSeconds(40)).outcome())
                .isEqualTo(DrainModel.Outcome.EMPTIED);
        assertThat(m.next(g, null, 30, T0.plusSeconds(40)).outcome()).isEqualTo(DrainModel.Outcome.REGISTRY_GONE);
    }

    @Test
    void poolPlanDrainsLeastLoadedAndReplacesDeadPods() {
        Capacity cap = new Capacity.Sfu(1000, 1000, 1000);
        PoolModel.Health health = new PoolModel.Health(Duration.ofSeconds(60), Duration.ofSeconds(30));
        List<PoolPod> pods = List.of(
                pod("a", PodLoad.sfu("ACTIVE", 0, 0, 0, 9, 0.5), true, null),
                pod("b", PodLoad.sfu("ACTIVE", 0, 0, 0, 2, 0.1), true, null),
                pod("c", PodLoad.sfu("ACTIVE", 0, 0, 0, 5, 0.3), true, null),
                pod("lapsed", null, true, null),
                pod("unready", PodLoad.sfu("ACTIVE", 0, 0, 0, 3, 0.2), true, T0.minusSeconds(31)));
        PoolPlan plan = new PoolModel().plan(pods, 2, cap, health, T0);
        assertThat(plan.replaceNow()).containsOnlyKeys("lapsed");
        assertThat(plan.startDrain()).containsEntry("unready", "Unhealthy").containsEntry("b", "ScaleDown")
                .doesNotContainKeys("a", "c");
        assertThat(plan.create()).isZero();
        // below target: create
        assertThat(new PoolModel().plan(List.of(pods.get(0)), 3, cap, health, T0).create()).isEqualTo(2);
    }

    private static PoolPod pod(String name, PodLoad load, boolean everRegistered, Instant unreadySince) {
        return new PoolPod(name, T0.minusSeconds(600), load, everRegistered, false, unreadySince, null, null);
    }
}
