package dev.parley.operator.model;

import dev.parley.operator.config.PodSettings;
import dev.parley.operator.crd.ParleyApi;
import dev.parley.operator.crd.PodTemplateOverrides;
import dev.parley.operator.crd.RecordingJob;
import dev.parley.operator.crd.SfuPool;
import dev.parley.operator.crd.MediaRegion;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The desired SFU, TURN and recorder Pods for a spec (the operator owns them directly, no Deployment in between).
 * Pure: no API calls; the reconcilers decide when a pod is created and which one goes.
 */
public final class PodFactory {
    private static final String ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
    private static final SecureRandom RANDOM = new SecureRandom();
    public static final int TURN_INTERNAL_PORT = 8091;
    public static final int RECORDER_HEALTH_PORT = 8092;
    /** A JVM's first start (class loading, JIT, etcd connect) may take a while: up to 2 s × 60 before liveness counts. */
    static final int STARTUP_PERIOD_SECONDS = 2;
    static final int STARTUP_FAILURES = 60;

    private final PodSettings config;

    public PodFactory(PodSettings config) {
        this.config = config;
    }

    /** Kubernetes-style random suffix so a replaced pod never reuses a name (and its registry key). */
    public static String suffix() {
        StringBuilder b = new StringBuilder(5);
        for (int i = 0; i < 5; i++) {
            b.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
        }
        return b.toString();
    }

    public static Map<String, String> poolSelector(String component, String pool) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(ParleyApi.LABEL_COMPONENT, component);
        m.put(ParleyApi.LABEL_POOL, pool);
        return m;
    }

    public Pod sfuPod(SfuPool pool, String name) {
        var spec = pool.getSpec();
        List<EnvVar> env = commonEnv(spec.region);
        env.add(env("PARLEY_MEDIA_UDP_PORT", String.valueOf(spec.mediaUdpPort)));
        env.add(env("PARLEY_MEDIA_TCP_PORT", String.valueOf(spec.mediaUdpPort)));
        env.add(env("PARLEY_INTERNAL_PORT", String.valueOf(spec.internalPort)));
        env.add(secretEnv("PARLEY_TICKET_PUBLIC_JWK", config.ticketKeySecretName(), "public.jwk"));
        List<ContainerPort> ports = List.of(
                new ContainerPortBuilder().withName("media-udp").withContainerPort(spec.mediaUdpPort).withProtocol("UDP").build(),
                new ContainerPortBuilder().withName("media-tcp").withContainerPort(spec.mediaUdpPort).withProtocol("TCP").build(),
                new ContainerPortBuilder().withName("internal").withContainerPort(spec.internalPort).withProtocol("TCP").build());
        return mediaPod(pool, name, ParleyApi.COMPONENT_SFU, pool.getMetadata().getName(), spec.region,
                spec.template, config.sfuImage(), env, ports, spec.internalPort);
    }

    public Pod turnPod(MediaRegion region, String name) {
        var turn = region.getSpec().turn;
        List<EnvVar> env = commonEnv(region.getSpec().region);
        env.add(env("PARLEY_TURN_PORT", String.valueOf(turn.port)));
        env.add(env("PARLEY_TURN_REALM", region.getSpec().turnHost == null ? "parley" : region.getSpec().turnHost));
        env.add(secretEnv("PARLEY_TURN_SECRETS", config.turnSecretName(), "secrets"));
        env.add(env("PARLEY_INTERNAL_PORT", String.valueOf(TURN_INTERNAL_PORT)));
        List<ContainerPort> ports = List.of(
                new ContainerPortBuilder().withName("turn-udp").withContainerPort(turn.port).withProtocol("UDP").build(),
                new ContainerPortBuilder().withName("turn-tcp").withContainerPort(turn.port).withProtocol("TCP").build(),
                new ContainerPortBuilder().withName("internal").withContainerPort(TURN_INTERNAL_PORT).withProtocol("TCP").build());
        return mediaPod(region, name, ParleyApi.COMPONENT_TURN, turnPoolName(region), region.getSpec().region,
                turn.template, config.turnImage(), env, ports, TURN_INTERNAL_PORT);
    }

    public static String turnPoolName(MediaRegion region) {
        return region.getMetadata().getName() + "-turn";
    }

    private Pod mediaPod(HasMetadata owner, String name, String component, String pool, String region,
                         PodTemplateOverrides t, String defaultImage, List<EnvVar> env, List<ContainerPort> ports,
                         int internalPort) {
        Map<String, String> labels = new LinkedHashMap<>(t.labels);
        labels.put("app.kubernetes.io/name", "parley-" + component);
        labels.put(ParleyApi.LABEL_MANAGED_BY, ParleyApi.MANAGED_BY);
        labels.putAll(poolSelector(component, pool));
        labels.put(ParleyApi.LABEL_REGION, region);
        labels.put(ParleyApi.LABEL_SERVING, "true");
        addLogEnv(env, t.env);
        env.addAll(t.env);
        return new PodBuilder()
                .withNewMetadata().withName(name).withNamespace(owner.getMetadata().getNamespace())
                .withLabels(labels).withAnnotations(new LinkedHashMap<>(t.annotations))
                .withOwnerReferences(ownerRef(owner)).endMetadata()
                .withNewSpec()
                .addNewReadinessGate().withConditionType(ParleyApi.READINESS_GATE).endReadinessGate()
                .withRestartPolicy("Always")
                // The drain happens before deletion; this only covers the process's own shutdown.
                .withTerminationGracePeriodSeconds(30L)
                .withHostNetwork(t.hostNetwork)
                .withNodeSelector(t.nodeSelector.isEmpty() ? null : t.nodeSelector)
                .withTolerations(t.tolerations)
                .withPriorityClassName(t.priorityClassName)
                .withContainers(new ContainerBuilder()
                        .withName(component)
                        .withImage(t.image != null ? t.image : defaultImage)
                        .withImagePullPolicy(t.imagePullPolicy)
                        .withEnv(env)
                        .withPorts(ports)
                        .withResources(t.resources)
                        .withStartupProbe(startupProbe(internalPort))
                        .withReadinessProbe(httpProbe("/readyz", internalPort, 2, 3))
                        .withLivenessProbe(httpProbe("/healthz", internalPort, 10, 3))
                        .withNewSecurityContext().withAllowPrivilegeEscalation(false).withRunAsNonRoot(true)
                        .withNewCapabilities().withDrop("ALL").endCapabilities().endSecurityContext()
                        .build())
                .endSpec()
                .build();
    }

    public Pod recorderPod(RecordingJob job, String name, int generation) {
        var spec = job.getSpec();
        PodTemplateOverrides t = spec.template;
        List<EnvVar> env = commonEnv(spec.region == null ? "" : spec.region);
        env.add(env("PARLEY_RECORDING_JOB_ID", spec.jobId));
        env.add(env("PARLEY_RECORDING_GENERATION", String.valueOf(generation)));
        env.add(env("PARLEY_MEETING_ID", spec.meetingId));
        env.add(env("PARLEY_S3_BUCKET", spec.output.bucket));
        env.add(env("PARLEY_S3_PREFIX", spec.output.prefix == null ? "" : spec.output.prefix));
        if (spec.output.endpoint != null) {
            env.add(env("PARLEY_S3_ENDPOINT", spec.output.endpoint));
        }
        if (spec.output.credentialsSecret != null) {
            env.add(secretEnv("PARLEY_S3_ACCESS_KEY", spec.output.credentialsSecret, "accessKey"));
            env.add(secretEnv("PARLEY_S3_SECRET_KEY", spec.output.credentialsSecret, "secretKey"));
        }
        addLogEnv(env, t.env);
        env.addAll(t.env);
        Map<String, String> labels = new LinkedHashMap<>(t.labels);
        labels.put("app.kubernetes.io/name", "parley-recorder");
        labels.put(ParleyApi.LABEL_MANAGED_BY, ParleyApi.MANAGED_BY);
        labels.put(ParleyApi.LABEL_COMPONENT, ParleyApi.COMPONENT_RECORDER);
        labels.put(ParleyApi.LABEL_RECORDING_JOB, job.getMetadata().getName());
        labels.put(ParleyApi.LABEL_RECORDING_GENERATION, String.valueOf(generation));
        return new PodBuilder()
                .withNewMetadata().withName(name).withNamespace(job.getMetadata().getNamespace())
                .withLabels(labels).withAnnotations(new LinkedHashMap<>(t.annotations))
                .withOwnerReferences(ownerRef(job)).endMetadata()
                .withNewSpec()
                // A failed generation is replaced by generation + 1, never restarted in place.
                .withRestartPolicy("Never")
                .withTerminationGracePeriodSeconds(60L)
                .withNodeSelector(t.nodeSelector.isEmpty() ? null : t.nodeSelector)
                .withTolerations(t.tolerations)
                .withContainers(new ContainerBuilder()
                        .withName(ParleyApi.COMPONENT_RECORDER)
                        .withImage(t.image != null ? t.image : config.recorderImage())
                        .withImagePullPolicy(t.imagePullPolicy)
                        .withEnv(env)
                        .withResources(t.resources)
                        .withTerminationMessagePath("/dev/termination-log")
                        .withTerminationMessagePolicy("File")
                        .withStartupProbe(startupProbe(RECORDER_HEALTH_PORT))
                        .withLivenessProbe(httpProbe("/healthz", RECORDER_HEALTH_PORT, 10, 3))
                        .withNewSecurityContext().withAllowPrivilegeEscalation(false).withRunAsNonRoot(true)
                        .withNewCapabilities().withDrop("ALL").endCapabilities().endSecurityContext()
                        .build())
                .endSpec()
                .build();
    }

    private List<EnvVar> commonEnv(String region) {
        List<EnvVar> env = new ArrayList<>();
        env.add(new EnvVarBuilder().withName("PARLEY_POD_NAME").withNewValueFrom().withNewFieldRef()
                .withFieldPath("metadata.name").endFieldRef().endValueFrom().build());
        env.add(new EnvVarBuilder().withName("PARLEY_BIND_ADDRESS").withNewValueFrom().withNewFieldRef()
                .withFieldPath("status.podIP").endFieldRef().endValueFrom().build());
        env.add(env("PARLEY_REGION", region));
        env.add(env("PARLEY_ETCD_ENDPOINTS", config.podEtcdEndpoints()));
        env.add(secretEnv("PARLEY_INTERNAL_SECRET", config.internalSecretName(), "secret"));
        return env;
    }

    /** The operator's log settings, when set; a name the template's env sets is left to the template. */
    private void addLogEnv(List<EnvVar> env, List<EnvVar> template) {
        config.logEnv().forEach((name, value) -> {
            if (template.stream().noneMatch(e -> name.equals(e.getName()))) {
                env.add(env(name, value));
            }
        });
    }

    private static EnvVar env(String name, String value) {
        return new EnvVarBuilder().withName(name).withValue(value).build();
    }

    private static EnvVar secretEnv(String name, String secret, String key) {
        return new EnvVarBuilder().withName(name).withNewValueFrom().withNewSecretKeyRef()
                .withName(secret).withKey(key).endSecretKeyRef().endValueFrom().build();
    }

    private static Probe httpProbe(String path, int port, int period, int failures) {
        return new ProbeBuilder().withNewHttpGet().withPath(path).withNewPort(port).endHttpGet()
                .withPeriodSeconds(period).withFailureThreshold(failures).build();
    }

    /** Liveness and readiness only start once {@code /healthz} answered, so a slow start is not restarted in a loop. */
    private static Probe startupProbe(int port) {
        return httpProbe("/healthz", port, STARTUP_PERIOD_SECONDS, STARTUP_FAILURES);
    }

    public static OwnerReference ownerRef(HasMetadata owner) {
        return new OwnerReferenceBuilder().withApiVersion(owner.getApiVersion()).withKind(owner.getKind())
                .withName(owner.getMetadata().getName()).withUid(owner.getMetadata().getUid())
                .withController(true).withBlockOwnerDeletion(true).build();
    }
}
