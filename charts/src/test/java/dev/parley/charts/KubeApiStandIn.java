package dev.parley.charts;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;

/**
 * Test infrastructure: the Kubernetes API the embedded Helm talks to. helm-java 0.0.15 renders templates with
 * cluster access on, so the chart's {@code lookup} calls go to the cluster of $KUBECONFIG. The pom points
 * KUBECONFIG at a file under target/ (never a developer's real cluster), and this writes that file for
 * Fabric8's mock API server in CRUD mode on 127.0.0.1. Helm's discovery of the core group is answered here;
 * the CRUD dispatcher does the rest.
 */
final class KubeApiStandIn {
    private static final String CORE_RESOURCES = """
            {"kind":"APIResourceList","apiVersion":"v1","groupVersion":"v1","resources":[
             {"name":"secrets","singularName":"secret","namespaced":true,"kind":"Secret","verbs":["get","list","create"]},
             {"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["get","list","create"]}]}
            """;
    private static KubeApiStandIn shared;

    private final KubernetesMockServer server;
    final KubernetesClient client;

    private KubeApiStandIn() throws IOException {
        java.util.logging.Logger.getLogger("io.fabric8.mockwebserver").setLevel(java.util.logging.Level.WARNING);
        KubernetesCrudDispatcher crud = new KubernetesCrudDispatcher(List.of());
        Dispatcher dispatcher = new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                String path = request.getPath();
                if ("GET".equals(request.getMethod()) && (path.equals("/api/v1") || path.startsWith("/api/v1?"))) {
                    return new MockResponse().setResponseCode(200).setHeader("Content-Type", "application/json")
                            .setBody(CORE_RESOURCES);
                }
                return crud.dispatch(request);
            }
        };
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), dispatcher, false);
        server.init(InetAddress.getByName("127.0.0.1"), 0);
        client = server.createClient();
        String kubeconfig = System.getenv("KUBECONFIG");
        if (kubeconfig == null || !kubeconfig.contains("target")) {
            throw new IllegalStateException("KUBECONFIG must point into target/ (set by charts/pom.xml), was " + kubeconfig);
        }
        Path file = Path.of(kubeconfig);
        Files.createDirectories(file.getParent());
        Files.writeString(file, """
                apiVersion: v1
                kind: Config
                clusters: [{name: stand-in, cluster: {server: "http://127.0.0.1:%d"}}]
                contexts: [{name: stand-in, context: {cluster: stand-in, user: stand-in}}]
                users: [{name: stand-in, user: {}}]
                current-context: stand-in
                """.formatted(server.getPort()));
    }

    /** One server for the whole test JVM; Helm reads the kubeconfig file on every call. */
    static synchronized KubeApiStandIn get() {
        if (shared == null) {
            try {
                shared = new KubeApiStandIn();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            Runtime.getRuntime().addShutdownHook(new Thread(shared.server::destroy));
        }
        return shared;
    }
}
