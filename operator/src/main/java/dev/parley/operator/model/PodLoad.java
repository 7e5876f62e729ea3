package dev.parley.operator.model;

/**
 * What a media pod last published about itself in the registry. SFU pods fill the SFU fields, TURN pods
 * allocations and relayedBps; the rest stay 0.
 *
 * @param state ACTIVE or DRAINING (as written in etcd)
 * @param reportedStress the pod's own 0..1+ summary, if it publishes one
 * @param internalUrl base URL of the pod's internal API (may be null)
 */
public record PodLoad(String state, long egressBps, long ingressBps, long pps, long transports,
                      long subscriptions, double reportedStress, long allocations, long relayedBps,
                      String internalUrl) {
    public static final String ACTIVE = "ACTIVE";
    public static final String DRAINING = "DRAINING";

    public static PodLoad sfu(String state, long egressBps, long pps, long subscriptions, long transports, double stress) {
        return new PodLoad(state, egressBps, 0, pps, transports, subscriptions, stress, 0, 0, null);
    }

    public static PodLoad turn(String state, long allocations, long relayedBps) {
        return new PodLoad(state, 0, 0, 0, 0, 0, 0, allocations, relayedBps, null);
    }

    public boolean active() {
        return ACTIVE.equals(state);
    }

    /** Connections that a drain must wait for: transports on an SFU, allocations on TURN. */
    public long connections() {
        return transports + allocations;
    }
}
