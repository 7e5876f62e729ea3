package dev.parley.operator.support;

import dev.parley.operator.OperatorConfig;
import dev.parley.operator.ParleyOperator;
import dev.parley.operator.registry.EtcdRegistry;
import dev.parley.operator.registry.HttpDrainSignal;
import io.fabric8.kubernetes.api.model.Event;
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
 * The real operator (JOSDK + our reconcilers) against Fabric8's mock API server in CRUD mode, with load read
 * from a real etcd. Server-side apply is off because the mock server does not implement it.
 */
public final class OperatorHarness implements AutoCloseable {
    public final EtcdProcess etcd;
    public final KubernetesMockServer server;
    public final KubernetesClient client;
    public final RegistryWriter registry;
    public final EtcdRegistry operatorRegistry;
    private final ParleyOperator operator;

    public OperatorHarness() throws Exception {
        this(Duration.ofMillis(300));
    }

    /** @param resync how often pools are re-evaluated against registry load ({@code PARLEY_OPERATOR_RESYNC_MS}) */
    public OperatorHarness(Duration resync) throws Exception {
        // the mock web server logs every request through java.util.logging
        java.util.logging.Logger.getLogger("io.fabric8.mockwebserver").setLevel(java.util.logging.Level.WARNING);
        java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
        etcd = EtcdProcess.start();
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new KubernetesCrudDispatcher(List.of()), false);
        server.init(InetAddress.getByName("127.0.0.1"), 0);
        client = server.createClient();
        installCrds(client);
        registry = new RegistryWriter(etcd.client());
        operatorRegistry = new EtcdRegistry(etcd.client());
        OperatorConfig config = OperatorConfig.forTests(etcd.endpoint(), resync);
        operator = new ParleyOperator(client, config, operatorRegistry, operatorRegistry, operatorRegistry,
                new HttpDrainSignal(config.internalSecret()), Instant::now,
                o -> o.withSSABasedCreateUpdateMatchForDependentResources(false)
                        .withUseSSAToPatchPrimaryResource(false)
                        .checkingCRDAndValidateLocalModel(false)
                        .withConcurrentReconciliationThreads(4));
        operator.start();
    }

    /** Loads the committed CRDs (crds/) into the mock server, so custom resources behave as declared. */
    public static void installCrds(KubernetesClient client) throws Exception {
        try (Stream<Path> s = Files.list(Path.of("..", "crds"))) {
            for (Path p : s.filter(x -> x.toString().endsWith(".yml")).toList()) {
                try (InputStream in = Files.newInputStream(p)) {
                    CustomResourceDefinition crd = client.getKubernetesSerialization().unmarshal(in, CustomResourceDefinition.class);
                    client.apiextensions().v1().customResourceDefinitions().resource(crd).create();
                }
            }
        }
    }

    public dev.parley.operator.metrics.OperatorMetrics metrics() {
        return operator.metrics();
    }

    public List<Event> events(String namespace) {
        return client.v1().events().inNamespace(namespace).list().getItems();
    }

    public List<Event> eventsAbout(String namespace, String name, String reason) {
        return events(namespace).stream()
                .filter(e -> name.equals(e.getInvolvedObject().getName()) && (reason == null || reason.equals(e.getReason())))
                .toList();
    }

    @Override
    public void close() throws java.io.IOException {
        operator.close();
        client.close();
        server.destroy();
        registry.close();
        operatorRegistry.close();
        etcd.close();
    }
}
