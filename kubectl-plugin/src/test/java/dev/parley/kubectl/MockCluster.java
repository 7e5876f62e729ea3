package dev.parley.kubectl;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.stream.Stream;

/**
 * Fabric8's mock API server in CRUD mode with the generated CRDs loaded, reached by the plugin through a real
 * kubeconfig file whose context namespace is {@code namespace}.
 */
final class MockCluster implements AutoCloseable {
    final KubernetesMockServer server;
    final KubernetesClient client;
    final Path kubeconfig;

    record Result(int code, String out, String err) {
    }

    MockCluster(Path dir, String namespace) throws Exception {
        java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(List.of()), false);
        server.init(InetAddress.getByName("127.0.0.1"), 0);
        client = server.createClient();
        try (Stream<Path> s = Files.list(Path.of("..", "crds"))) {
            for (Path p : s.filter(x -> x.toString().endsWith(".yml")).toList()) {
                try (InputStream in = Files.newInputStream(p)) {
                    client.apiextensions().v1().customResourceDefinitions()
                            .resource(client.getKubernetesSerialization().unmarshal(in, CustomResourceDefinition.class)).create();
                }
            }
        }
        kubeconfig = dir.resolve("kubeconfig");
        Files.writeString(kubeconfig, kubeconfig(masterUrl(), namespace));
    }

    String masterUrl() {
        return client.getConfiguration().getMasterUrl().replace("localhost", "127.0.0.1");
    }

    static String kubeconfig(String server, String namespace) {
        return """
                apiVersion: v1
                kind: Config
                clusters:
                - name: mock
                  cluster: {server: "%s"}
                users:
                - name: tester
                  user: {token: test-token}
                contexts:
                - name: mock
                  context: {cluster: mock, user: tester, namespace: %s}
                current-context: mock
                """.formatted(server, namespace);
    }

    /** Runs the plugin with {@code --kubeconfig} appended. */
    Result run(String... args) {
        String[] all = Stream.concat(Stream.of(args), Stream.of("--kubeconfig", kubeconfig.toString())).toArray(String[]::new);
        return runRaw(all);
    }

    static Result runRaw(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = KubectlParley.run(new PrintWriter(out), new PrintWriter(err), args);
        return new Result(code, out.toString(), err.toString());
    }

    /** The API server's own bytes for a path (e.g. /api/v1/namespaces/ops/pods): to prove that nothing changed. */
    String raw(String path) throws Exception {
        try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(masterUrl().replaceAll("/+$", "") + path))
                    .header("Authorization", "Bearer test-token").build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IllegalStateException(path + ": HTTP " + r.statusCode());
            }
            return r.body();
        }
    }

    @Override
    public void close() {
        client.close();
        server.destroy();
    }
}
