package dev.parley.testsupport.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.IOException;
import java.io.StringReader;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.BooleanSupplier;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stand-in kubelet against Fabric8's mock API server, running {@link ProbePod} processes: pod environment
 * resolution (fieldRefs, Secret keys from stringData and data, port remapping), one process starting at a time,
 * Pods of other components left alone, Pod deletion stopping the process and a process exit failing the Pod.
 */
class LocalPodRunnerIT {
    static final String NS = "kubelet";
    static final String COMPONENT = "example.test/component";
    static final Duration WAIT = Duration.ofSeconds(90); // JVM starts on a loaded 2-core machine
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @TempDir
    Path tmp;
    KubernetesMockServer server;
    KubernetesClient client;

    @BeforeEach
    void mockApiServer() throws IOException {
        java.util.logging.Logger.getLogger("io.fabric8.mockwebserver").setLevel(java.util.logging.Level.WARNING);
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new KubernetesCrudDispatcher(List.of()), false);
        server.init(InetAddress.getByName("127.0.0.1"), 0);
        client = server.createClient();
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        server.destroy();
    }

    @Test
    void podsBecomeProcessesOneAtATimeWithTheirEnvironmentAndFollowDeletionAndExit() throws Exception {
        client.secrets().inNamespace(NS).resource(new SecretBuilder().withNewMetadata().withName("plain").endMetadata()
                .addToStringData("token", "from-string-data").build()).create();
        client.secrets().inNamespace(NS).resource(new SecretBuilder().withNewMetadata().withName("encoded").endMetadata()
                .addToData("key", Base64.getEncoder().encodeToString("from-data".getBytes(StandardCharsets.UTF_8))).build()).create();
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        try (LocalPodRunner runner = new LocalPodRunner(client, NS, COMPONENT, Map.of("probe", probeJar()), logs)) {
            client.pods().inNamespace(NS).resource(pod("probe-a", "probe")).create();
            client.pods().inNamespace(NS).resource(pod("probe-b", "probe")).create();
            client.pods().inNamespace(NS).resource(pod("other-0", "other")).create();

            // one process at a time: the second starts only once the first answers /readyz (6 s after its start)
            await(() -> runner.isRunning("probe-a") || runner.isRunning("probe-b"), "a first probe process");
            String first = runner.isRunning("probe-a") ? "probe-a" : "probe-b";
            String second = first.equals("probe-a") ? "probe-b" : "probe-a";
            assertThat(runner.isRunning(second)).as("second process started together with the first").isFalse();
            await(() -> runner.isRunning(second), "the second probe process");
            assertThat(status(runner, first, "/readyz")).as("first ready before the second started").isEqualTo(200);

            // the process got the pod's environment, resolved and remapped
            Properties env = new Properties();
            env.load(new StringReader(get(runner, first, "/env")));
            assertThat(env).containsEntry("POD_NAME", first).containsEntry("POD_NAMESPACE", NS).containsEntry("POD_IP", "127.0.0.1")
                    .containsEntry("PLAIN", "literal").containsEntry("TOKEN", "from-string-data").containsEntry("KEY", "from-data")
                    .containsEntry("PARLEY_BIND_ADDRESS", "127.0.0.1");
            assertThat(env.getProperty("PARLEY_INTERNAL_PORT")).isNotEqualTo("8080").isEqualTo(runner.env(first).get("PARLEY_INTERNAL_PORT"));
            Pod running = client.pods().inNamespace(NS).withName(first).get();
            assertThat(running.getStatus().getPhase()).isEqualTo("Running");
            assertThat(running.getStatus().getPodIP()).isEqualTo("127.0.0.1");
            assertThat(runner.isRunning("other-0")).as("a pod of a component without a jar").isFalse();
            assertThat(runner.runningProcesses()).isEqualTo(2);

            // deleting the Pod stops its process
            client.pods().inNamespace(NS).withName(first).delete();
            await(() -> !runner.isRunning(first), first + "'s process stopped");

            // a process that exits fails its Pod
            await(() -> status(runner, second, "/readyz") == 200, second + " ready");
            status(runner, second, "/exit");
            await(() -> "Failed".equals(client.pods().inNamespace(NS).withName(second).get().getStatus().getPhase()),
                    second + " marked Failed");
            assertThat(runner.runningProcesses()).isZero();
        }
    }

    private static Pod pod(String name, String component) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace(NS).addToLabels(COMPONENT, component).endMetadata()
                .withNewSpec().addNewContainer().withName("main").withImage("example.test/probe")
                .withEnv(new EnvVar("PLAIN", "literal", null),
                        new EnvVar("PROBE_READY_AFTER_MS", "6000", null),
                        new EnvVar("PARLEY_INTERNAL_PORT", "8080", null),
                        new EnvVarBuilder().withName("POD_NAME").withNewValueFrom().withNewFieldRef().withFieldPath("metadata.name")
                                .endFieldRef().endValueFrom().build(),
                        new EnvVarBuilder().withName("POD_NAMESPACE").withNewValueFrom().withNewFieldRef()
                                .withFieldPath("metadata.namespace").endFieldRef().endValueFrom().build(),
                        new EnvVarBuilder().withName("POD_IP").withNewValueFrom().withNewFieldRef().withFieldPath("status.podIP")
                                .endFieldRef().endValueFrom().build(),
                        new EnvVarBuilder().withName("TOKEN").withNewValueFrom().withNewSecretKeyRef().withName("plain")
                                .withKey("token").endSecretKeyRef().endValueFrom().build(),
                        new EnvVarBuilder().withName("KEY").withNewValueFrom().withNewSecretKeyRef().withName("encoded")
                                .withKey("key").endSecretKeyRef().endValueFrom().build())
                .endContainer().endSpec().build();
    }

    /** An empty runnable jar whose manifest points at this module's test classes, so {@code java -jar} runs ProbePod. */
    private Path probeJar() throws Exception {
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        m.getMainAttributes().put(Attributes.Name.MAIN_CLASS, ProbePod.class.getName());
        m.getMainAttributes().put(Attributes.Name.CLASS_PATH,
                ProbePod.class.getProtectionDomain().getCodeSource().getLocation().toURI().toString());
        Path jar = tmp.resolve("probe-pod.jar");
        new JarOutputStream(Files.newOutputStream(jar), m).close();
        return jar;
    }

    private static int status(LocalPodRunner runner, String pod, String path) {
        try {
            return request(runner, pod, path).statusCode();
        } catch (IOException e) {
            return -1;
        }
    }

    private static String get(LocalPodRunner runner, String pod, String path) throws IOException {
        return request(runner, pod, path).body();
    }

    private static HttpResponse<String> request(LocalPodRunner runner, String pod, String path) throws IOException {
        URI uri = URI.create("http://127.0.0.1:" + runner.env(pod).get("PARLEY_INTERNAL_PORT") + path);
        try {
            return HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + WAIT + " waiting for " + what);
            }
            Thread.sleep(50);
        }
    }
}
