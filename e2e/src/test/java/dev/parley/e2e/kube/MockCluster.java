package dev.parley.e2e.kube;

import dev.parley.operator.OperatorConfig;
import dev.parley.operator.ParleyOperator;
import dev.parley.operator.registry.EtcdRegistry;
import dev.parley.operator.registry.HttpDrainSignal;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;

import java.io.InputStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.stream.Stream;

/**
 * TEST INFRASTRUCTURE — a Kubernetes stand-in for e2e tests: Fabric8's mock API server in CRUD mode with the
 * committed CRDs ({@code crds/}) loaded, and the real operator (JOSDK + Parley's reconcilers, server-side apply
 * off because the mock server lacks it) reading load from a real etcd. A kubeconfig file lets
 * {@code kubectl-parley} talk to it.
 */
public final class MockCluster implements AutoCloseable {
    /** The mock web server logs every request through java.util.logging; held here so the level sticks (weak refs). */
    private static final java.util.logging.Logger MOCK_SERVER_LOG = java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");
    public final KubernetesMockServer server;
    public final KubernetesClient client;
    public final EtcdRegistry registry;
    public final OperatorConfig config;
    private final ParleyOperator operator;

    public MockCluster(String etcdEndpoint, Path crds) throws Exception {
        MOCK_SERVER_LOG.setLevel(java.util.logging.Level.WARNING);
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new KubernetesCrudDispatcher(List.of()), false);
        server.init(InetAddress.getByName("127.0.0.1"), 0);
        client = server.createClient();
        try (Stream<Path> s = Files.list(crds)) {
            for (Path p : s.filter(x -> x.toString().endsWith(".yml")).toList()) {
                try (InputStream in = Files.newInputStream(p)) {
                    CustomResourceDefinition crd = client.getKubernetesSerialization().unmarshal(in, CustomResourceDefinition.class);
                    client.apiextensions().v1().customResourceDefinitions().resource(crd).create();
                }
            }
        }
        registry = EtcdRegistry.connect(etcdEndpoint);
        config = OperatorConfig.forTests(etcdEndpoint, Duration.ofMillis(500));
        operator = new ParleyOperator(client, config, registry, registry, registry, new HttpDrainSignal(config.internalSecret()),
                Instant::now, o -> o.withSSABasedCreateUpdateMatchForDependentResources(false)
                        .withUseSSAToPatchPrimaryResource(false)
                        .checkingCRDAndValidateLocalModel(false)
                        .withConcurrentReconciliationThreads(2));
        operator.start();
    }

    /** The bearer secret the operator uses for drain calls; pods get it through the Secret of that name. */
    public String internalSecret() {
        return config.internalSecret();
    }

    public void secret(String namespace, String name, String key, String value) {
        client.secrets().inNamespace(namespace).resource(new SecretBuilder().withNewMetadata().withName(name).endMetadata()
                .addToStringData(key, value).build()).create();
    }

    /** A kubeconfig for the mock server (what kubectl-parley reads), default namespace {@code namespace}. */
    public Path writeKubeconfig(Path file, String namespace) throws java.io.IOException {
        Files.writeString(file, """
                apiVersion: v1
                kind: Config
                clusters: [{name: mock, cluster: {server: "%s"}}]
                users: [{name: tester, user: {token: t}}]
                contexts: [{name: mock, context: {cluster: mock, user: tester, namespace: %s}}]
                current-context: mock
                """.formatted(client.getConfiguration().getMasterUrl().replace("localhost", "127.0.0.1"), namespace));
        return file;
    }

    public List<Event> eventsAbout(String namespace, String name, String reason) {
        return client.v1().events().inNamespace(namespace).list().getItems().stream()
                .filter(e -> name.equals(e.getInvolvedObject().getName()) && (reason == null || reason.equals(e.getReason())))
                .toList();
    }

    @Override
    public void close() {
        operator.close();
        client.close();
        server.destroy();
        registry.close();
    }
}
