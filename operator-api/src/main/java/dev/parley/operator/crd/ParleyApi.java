package dev.parley.operator.crd;

/** API group, version and the label/annotation vocabulary shared by the operator and the kubectl plugin. */
public final class ParleyApi {
    public static final String GROUP = "parley.dev";
    public static final String VERSION = "v1alpha1";

    public static final String LABEL_COMPONENT = "parley.dev/component";
    public static final String LABEL_POOL = "parley.dev/pool";
    public static final String LABEL_REGION = "parley.dev/region";
    /** "true" while the pod may receive new work; the stable Services select on it. */
    public static final String LABEL_SERVING = "parley.dev/serving";
    public static final String LABEL_RECORDING_JOB = "parley.dev/recording-job";
    public static final String LABEL_RECORDING_GENERATION = "parley.dev/recording-generation";
    public static final String LABEL_MANAGED_BY = "app.kubernetes.io/managed-by";
    public static final String MANAGED_BY = "parley-operator";

    /** Set by anyone (kubectl-parley drain) to ask the operator to drain this pod; value = reason. */
    public static final String ANNOTATION_DRAIN_REQUESTED = "parley.dev/drain-requested";
    /** Current drain phase, see {@code dev.parley.operator.model.DrainPhase}. */
    public static final String ANNOTATION_DRAIN_PHASE = "parley.dev/drain-phase";
    public static final String ANNOTATION_DRAIN_STARTED = "parley.dev/drain-started-at";
    public static final String ANNOTATION_DRAIN_PHASE_SINCE = "parley.dev/drain-phase-since";
    public static final String ANNOTATION_DRAIN_REASON = "parley.dev/drain-reason";
    /** Drain budget for this pod (seconds), copied from the pool when the drain starts. */
    public static final String ANNOTATION_DRAIN_TIMEOUT = "parley.dev/drain-timeout-seconds";
    /** First time the operator saw the pod's registry entry; a later disappearance means its lease lapsed. */
    public static final String ANNOTATION_REGISTERED_AT = "parley.dev/registered-at";
    /** Readiness gate condition the operator sets from the registry state (ACTIVE = True). */
    public static final String READINESS_GATE = "parley.dev/registry-active";

    public static final String COMPONENT_SFU = "sfu";
    public static final String COMPONENT_TURN = "turn";
    public static final String COMPONENT_RECORDER = "recorder";

    private ParleyApi() {
    }
}
