package dev.parley.operator.model;

import dev.parley.operator.crd.SfuAutoscalingSpec;
import dev.parley.operator.crd.TurnAutoscalingSpec;

/** What one pod is sized for; load 1.0 means "full". */
public sealed interface Capacity {
    double load(PodLoad l);

    record Sfu(long egressBps, long pps, long subscriptions) implements Capacity {
        public static Sfu of(SfuAutoscalingSpec s) {
            return new Sfu(s.egressBpsPerPod, s.ppsPerPod, s.subscriptionsPerPod);
        }

        /** The worst of the pod's own stress and each metric against its capacity. */
        @Override
        public double load(PodLoad l) {
            double v = Math.max(l.reportedStress(), (double) l.egressBps() / egressBps);
            v = Math.max(v, (double) l.pps() / pps);
            return Math.max(v, (double) l.subscriptions() / subscriptions);
        }
    }

    record Turn(long allocations, long relayedBps) implements Capacity {
        public static Turn of(TurnAutoscalingSpec s) {
            return new Turn(s.allocationsPerPod, s.relayedBpsPerPod);
        }

        @Override
        public double load(PodLoad l) {
            return Math.max((double) l.allocations() / allocations, (double) l.relayedBps() / relayedBps);
        }
    }
}
