package dev.parley.testsupport.kube;

import dev.parley.testsupport.net.FreePorts;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TEST INFRASTRUCTURE — a stand-in kubelet for Fabric8's mock API server: every Pod whose component label
 * names one of the given jars becomes a real local process ({@code java -jar <module>/target/<module>.jar})
 * with the pod's environment (fieldRefs and Secret references resolved, {@code PARLEY_*_PORT} remapped to free
 * loopback ports, bind address 127.0.0.1). Deleting the Pod stops the process; a process that exits marks the
 * Pod Failed. Nothing here is production code: it lets operator and e2e tests run the real operator against
 * real SFU/TURN processes without a cluster.
 *
 * <p>Processes start one at a time: a new one only once the previous answers {@code /readyz} on its
 * {@code PARLEY_INTERNAL_PORT} (or after {@link #START_SPACING}), because concurrent JVM starts on a small
 * shared machine time out on etcd.
 */
public final class LocalPodRunner implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LocalPodRunner.class);
    /** Longest wait for the previous process to turn ready before the next one starts anyway. */
    static final Duration START_SPACING = Duration.ofSeconds(45);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();

    private final KubernetesClient client;
    private final String namespace;
    private final String componentLabel;
    private final Map<String, Path> jars;
    private final Path logDir;
    private final Map<String, Process> running = new ConcurrentHashMap<>();
    private final Map<String, Map<String, String>> envs = new ConcurrentHashMap<>();
    private final Set<String> stopping = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor();
    private volatile String lastStarted;
    private volatile long lastStartedNanos;

    /**
     * @param componentLabel the Pod label whose value selects the jar (the operator's {@code ParleyApi.LABEL_COMPONENT};
     *                       passed in because test-support cannot depend on the operator module)
     * @param jars           component label value (e.g. sfu, turn) → runnable jar; Pods of other components are ignored
     * @param logDir         where each process writes {@code <pod>.log}
     */
    public LocalPodRunner(KubernetesClient client, String namespace, String componentLabel, Map<String, Path> jars,
                          Path logDir) {
        this.client = client;
        this.namespace = namespace;
        this.componentLabel = componentLabel;
        this.jars = Map.copyOf(jars);
        this.logDir = logDir;
        loop.scheduleWithFixedDelay(this::sync, 0, 200, TimeUnit.MILLISECONDS);
    }

    public int runningProcesses() {
        return (int) running.values().stream().filter(Process::isAlive).count();
    }

    public boolean isRunning(String pod) {
        Process p = running.get(pod);
        return p != null && p.isAlive();
    }

    private void sync() {
        try {
            List<Pod> pods = client.pods().inNamespace(namespace).withLabel(componentLabel).list().getItems();
            for (Pod p : pods) {
                String name = p.getMetadata().getName();
                String component = p.getMetadata().getLabels().get(componentLabel);
                if (!jars.containsKey(component) || running.containsKey(name) || p.getMetadata().getDeletionTimestamp() != null) {
                    continue;
                }
                if (previousStillStarting()) {
                    break;
                }
                start(p, jars.get(component));
            }
            for (var e : running.entrySet()) {
                boolean exists = pods.stream().anyMatch(p -> p.getMetadata().getName().equals(e.getKey()));
                if (!exists && e.getValue().isAlive() && stopping.add(e.getKey())) {
                    LOG.info("pod {} deleted: stopping its process", e.getKey());
                    e.getValue().destroy();
                } else if (exists && !e.getValue().isAlive()) {
                    markFailed(e.getKey(), e.getValue().exitValue());
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("local pod runner sync failed: {}", e.getMessage());
        }
    }

    private boolean previousStillStarting() {
        String prev = lastStarted;
        if (prev == null || !isRunning(prev) || System.nanoTime() - lastStartedNanos > START_SPACING.toNanos()) {
            return false;
        }
        String port = env(prev).get("PARLEY_INTERNAL_PORT");
        if (port == null) {
            return false; // no readiness endpoint to wait for
        }
        try {
            var r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
                    .timeout(Duration.ofSeconds(1)).GET().build(), HttpResponse.BodyHandlers.discarding());
            return r.statusCode() != 200;
        } catch (IOException e) {
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    private void start(Pod pod, Path jar) {
        String name = pod.getMetadata().getName();
        Map<String, String> env = new LinkedHashMap<>();
        for (EnvVar v : pod.getSpec().getContainers().get(0).getEnv()) {
            env.put(v.getName(), resolve(pod, v));
        }
        int span = portSpan(env);
        env.replaceAll((k, v) -> k.startsWith("PARLEY_") && k.endsWith("_PORT") ? String.valueOf(FreePorts.tcpAndUdpRange(span)) : v);
        env.put("PARLEY_BIND_ADDRESS", "127.0.0.1");
        try {
            ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx256m", "-XX:+UseSerialGC", "-jar", jar.toString());
            pb.environment().putAll(env);
            pb.redirectErrorStream(true).redirectOutput(logDir.resolve(name + ".log").toFile());
            envs.put(name, Map.copyOf(env));
            running.put(name, pb.start());
            lastStarted = name;
            lastStartedNanos = System.nanoTime();
            client.pods().inNamespace(namespace).withName(name).editStatus(x -> {
                x.setStatus(new PodStatusBuilder().withPhase("Running").withPodIP("127.0.0.1").withHostIP("127.0.0.1")
                        .withStartTime(Instant.now().toString())
                        .withConditions(new PodConditionBuilder().withType("Ready").withStatus("True")
                                .withLastTransitionTime(Instant.now().toString()).build())
                        .build());
                return x;
            });
            LOG.info("pod {} started as a local process ({}), env ports {}", name, jar.getFileName(),
                    env.entrySet().stream().filter(e -> e.getKey().endsWith("_PORT")).toList());
        } catch (IOException e) {
            LOG.warn("could not start {}: {}", name, e.getMessage());
        }
    }

    /**
     * How many consecutive ports each {@code PARLEY_*_PORT} needs free, TCP and UDP alike: an SFU's media worker i
     * binds UDP and ICE-TCP at port + i ({@code PARLEY_SFU_WORKERS}, default one per core as the SFU counts them);
     * a TURN port is both TCP and UDP. Checking only the port itself let port + 1 be taken ("Address already in use").
     */
    static int portSpan(Map<String, String> env) {
        String workers = env.get("PARLEY_SFU_WORKERS");
        if (workers != null && workers.trim().matches("\\d+")) return Math.max(1, Integer.parseInt(workers.trim()));
        boolean sfu = env.containsKey("PARLEY_MEDIA_UDP_PORT") || env.containsKey("PARLEY_MEDIA_TCP_PORT");
        return sfu ? Math.max(2, Runtime.getRuntime().availableProcessors()) : 1;
    }

    private String resolve(Pod pod, EnvVar v) {
        if (v.getValueFrom() == null) {
            return v.getValue() == null ? "" : v.getValue();
        }
        if (v.getValueFrom().getFieldRef() != null) {
            return switch (v.getValueFrom().getFieldRef().getFieldPath()) {
                case "metadata.name" -> pod.getMetadata().getName();
                case "metadata.namespace" -> pod.getMetadata().getNamespace();
                case "status.podIP", "status.hostIP" -> "127.0.0.1";
                default -> "";
            };
        }
        if (v.getValueFrom().getSecretKeyRef() != null) {
            var ref = v.getValueFrom().getSecretKeyRef();
            Secret s = client.secrets().inNamespace(namespace).withName(ref.getName()).get();
            if (s == null) {
                return "";
            }
            if (s.getStringData() != null && s.getStringData().containsKey(ref.getKey())) {
                return s.getStringData().get(ref.getKey());
            }
            String b64 = s.getData() == null ? null : s.getData().get(ref.getKey());
            return b64 == null ? "" : new String(Base64.getDecoder().decode(b64), StandardCharsets.UTF_8);
        }
        return "";
    }

    private void markFailed(String name, int exit) {
        Pod p = client.pods().inNamespace(namespace).withName(name).get();
        if (p == null || (p.getStatus() != null && "Failed".equals(p.getStatus().getPhase()))) {
            return;
        }
        LOG.info("process of pod {} exited with {}: marking the pod Failed", name, exit);
        client.pods().inNamespace(namespace).withName(name).editStatus(x -> {
            x.getStatus().setPhase("Failed");
            return x;
        });
    }

    /** The environment the pod's process got (after port remapping), e.g. to find its TURN port. */
    public Map<String, String> env(String pod) {
        return envs.getOrDefault(pod, Map.of());
    }

    public Path log(String pod) {
        return logDir.resolve(pod + ".log");
    }

    public String logText(String pod) {
        try {
            return Files.readString(log(pod));
        } catch (IOException e) {
            return "";
        }
    }

    @Override
    public void close() {
        loop.shutdownNow();
        running.values().forEach(Process::destroy);
        for (Process p : running.values()) {
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            p.destroyForcibly();
        }
    }
}
