package dev.parley.operator;

import dev.parley.operator.config.PodSettings;
import dev.parley.operator.config.RecordingSettings;
import java.time.Duration;
import java.util.Map;

/**
 * Operator settings from environment variables (docs/operator.md lists them). Secrets are referenced by
 * Secret name for pods; only the internal secret value is held, for the drain call. The parts the reconcilers use
 * are records of {@code dev.parley.operator.config}, so no package below the root depends on this wiring-level type.
 *
 * @param resync how often a pool or a running recording is re-read from the registry (etcd), which sends no events
 */
public record OperatorConfig(String etcdEndpoints, String internalSecret, Duration resync, boolean leaderElection,
                             String leaseNamespace, String watchNamespace, PodSettings pods, RecordingSettings recordings) {

    public static OperatorConfig fromEnv(Map<String, String> env) {
        String etcd = env.getOrDefault("PARLEY_ETCD_ENDPOINTS", "http://127.0.0.1:2379");
        return new OperatorConfig(
                etcd,
                env.getOrDefault("PARLEY_INTERNAL_SECRET", ""),
                Duration.ofMillis(Long.parseLong(env.getOrDefault("PARLEY_OPERATOR_RESYNC_MS", "5000"))),
                Boolean.parseBoolean(env.getOrDefault("PARLEY_LEADER_ELECTION", "true")),
                env.getOrDefault("POD_NAMESPACE", "parley-system"),
                env.get("PARLEY_WATCH_NAMESPACE"),
                new PodSettings(
                        env.getOrDefault("PARLEY_SFU_IMAGE", "ghcr.io/parley-dev/sfu-pod:0.1.0"),
                        env.getOrDefault("PARLEY_TURN_IMAGE", "ghcr.io/parley-dev/turn-pod:0.1.0"),
                        env.getOrDefault("PARLEY_RECORDER_IMAGE", "ghcr.io/parley-dev/recorder-pod:0.1.0"),
                        env.getOrDefault("PARLEY_POD_ETCD_ENDPOINTS", etcd),
                        env.getOrDefault("PARLEY_INTERNAL_SECRET_NAME", "parley-internal"),
                        env.getOrDefault("PARLEY_TURN_SECRET_NAME", "parley-turn"),
                        env.getOrDefault("PARLEY_TICKET_KEY_SECRET_NAME", "parley-ticket-key"),
                        PodSettings.logEnvFrom(env)),
                new RecordingSettings(recordingNamespace(env), env.get("PARLEY_RECORDING_BUCKET"),
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
        return new OperatorConfig(etcdEndpoints, "test-internal-secret", resync, false, "default", null,
                new PodSettings("parley/sfu-pod:test", "parley/turn-pod:test", "parley/recorder-pod:test", etcdEndpoints,
                        "parley-internal", "parley-turn", "parley-ticket-key"),
                new RecordingSettings("default", "recordings", null, null, null));
    }
}
