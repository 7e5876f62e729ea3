package dev.parley.operator;

import java.time.Duration;
import java.util.Map;

/**
 * Operator settings from environment variables (docs/operator.md lists them). Secrets are referenced by
 * Secret name for pods; only the internal secret value is held, for the drain call.
 */
public record OperatorConfig(String etcdEndpoints, String internalSecret, String sfuImage, String turnImage,
                             String recorderImage, Duration resync, boolean leaderElection, String leaseNamespace,
                             String watchNamespace, String internalSecretName, String turnSecretName,
                             String ticketKeySecretName, String podEtcdEndpoints, Recordings recordings) {

    /**
     * Where the RecordingJobs that the operator creates from the controller's request keys go, and their output.
     * Without a bucket the bridge is off (RecordingJob.spec.output.bucket is required).
     */
    public record Recordings(String namespace, String bucket, String prefix, String endpoint, String credentialsSecret) {
        public boolean enabled() {
            return bucket != null && !bucket.isBlank();
        }
    }

    public static OperatorConfig fromEnv(Map<String, String> env) {
        String etcd = env.getOrDefault("PARLEY_ETCD_ENDPOINTS", "http://127.0.0.1:2379");
        return new OperatorConfig(
                etcd,
                env.getOrDefault("PARLEY_INTERNAL_SECRET", ""),
                env.getOrDefault("PARLEY_SFU_IMAGE", "ghcr.io/parley-dev/sfu-pod:0.1.0"),
                env.getOrDefault("PARLEY_TURN_IMAGE", "ghcr.io/parley-dev/turn-pod:0.1.0"),
                env.getOrDefault("PARLEY_RECORDER_IMAGE", "ghcr.io/parley-dev/recorder-pod:0.1.0"),
                Duration.ofMillis(Long.parseLong(env.getOrDefault("PARLEY_OPERATOR_RESYNC_MS", "5000"))),
                Boolean.parseBoolean(env.getOrDefault("PARLEY_LEADER_ELECTION", "true")),
                env.getOrDefault("POD_NAMESPACE", "parley-system"),
                env.get("PARLEY_WATCH_NAMESPACE"),
                env.getOrDefault("PARLEY_INTERNAL_SECRET_NAME", "parley-internal"),
                env.getOrDefault("PARLEY_TURN_SECRET_NAME", "parley-turn"),
                env.getOrDefault("PARLEY_TICKET_KEY_SECRET_NAME", "parley-ticket-key"),
                env.getOrDefault("PARLEY_POD_ETCD_ENDPOINTS", etcd),
                new Recordings(recordingNamespace(env), env.get("PARLEY_RECORDING_BUCKET"),
                        env.get("PARLEY_RECORDING_PREFIX"), env.get("PARLEY_RECORDING_S3_ENDPOINT"),
                        env.get("PARLEY_RECORDING_CREDENTIALS_SECRET")));
    }

    /** PARLEY_RECORDING_NAMESPACE, else the first watched namespace, else the operator's own. */
    private static String recordingNamespace(Map<String, String> env) {
        String ns = env.get("PARLEY_RECORDING_NAMESPACE");
        if (ns != null && !ns.isBlank()) {
            return ns.trim();
        }
        String watched = env.get("PARLEY_WATCH_NAMESPACE");
        if (watched != null && !watched.isBlank()) {
            return watched.split(",")[0].trim();
        }
        return env.getOrDefault("POD_NAMESPACE", "parley-system");
    }

    /** Settings for tests: fast resync, no leader election. */
    public static OperatorConfig forTests(String etcdEndpoints, Duration resync) {
        return new OperatorConfig(etcdEndpoints, "test-internal-secret", "parley/sfu-pod:test", "parley/turn-pod:test",
                "parley/recorder-pod:test", resync, false, "default", null, "parley-internal", "parley-turn",
                "parley-ticket-key", etcdEndpoints, new Recordings("default", "recordings", null, null, null));
    }
}
