package dev.parley.operator.crd;

/** Who decides the replica count of a pool. */
public enum AutoscalingMode {
    /** The operator's own autoscaler, from registry load. */
    Builtin,
    /** spec.replicas, typically written by an HPA or KEDA through the scale subresource. */
    External
}
