package dev.parley.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.parley.operator.crd.SfuPool;
import dev.parley.operator.metrics.OperatorMetrics;
import dev.parley.operator.registry.EtcdRegistry;
import dev.parley.operator.registry.HttpDrainSignal;
import dev.parley.operator.support.EtcdProcess;
import dev.parley.operator.support.OperatorHarness;
import dev.parley.operator.support.Pools;
import io.fabric8.kubernetes.api.model.authorization.v1.ResourceRuleBuilder;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectRulesReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectRulesReviewBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;
import org.junit.jupiter.api.Test;

/**
 * Two operator replicas against one mock API server (CRUD for everything, plus the SelfSubjectRulesReview answer
 * JOSDK asks for before it campaigns): only the lease holder reconciles; when it stops, the other takes the lease
 * over and carries on (here: creates the pods of a pool made after the failover).
 */
class LeaderElectionTest {
    static final String NS = "le";
    static final String LEASE_NS = "parley-system";

    @Test
    void onlyTheLeaderReconcilesAndTheOtherTakesOverWhenItStops() throws Exception {
        java.util.logging.Logger.getLogger("io.fabric8.mockwebserver").setLevel(java.util.logging.Level.WARNING);
        Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), responses,
                new KubernetesMixedDispatcher(responses), false);
        server.init(InetAddress.getByName("127.0.0.1"), 0);
        SelfSubjectRulesReview allowed = new SelfSubjectRulesReviewBuilder().withNewStatus()
                .withResourceRules(new ResourceRuleBuilder().withApiGroups("coordination.k8s.io").withResources("leases")
                        .withVerbs("*").build())
                .withIncomplete(false).endStatus().build();
        server.expect().post().withPath("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews").andReturn(201, allowed).always();
        try (EtcdProcess etcd = EtcdProcess.start();
             KubernetesClient client = server.createClient()) {
            OperatorHarness.installCrds(client);
            EtcdRegistry registry = new EtcdRegistry(etcd.client());
            ParleyOperator a = replica(client, etcd, registry, "replica-a");
            a.start();
            // a holds the lease before b starts, so which one leads is known
            await().atMost(Duration.ofSeconds(60)).until(() -> holder(client) != null);
            assertThat(holder(client)).isEqualTo("replica-a");
            ParleyOperator b = replica(client, etcd, registry, "replica-b");
            b.start();
            try {
                client.resources(SfuPool.class).inNamespace(NS).resource(Pools.sfuPool(NS, "first", "r-le", 2, 4)).create();
                await().atMost(Duration.ofSeconds(60)).until(() -> Pools.podNames(client, NS, "sfu", "first").size() == 2);
                await().atMost(Duration.ofSeconds(30)).until(() -> reconciles(a) > 0);
                // the follower has been watching the whole time but never reconciled
                Thread.sleep(2000);
                assertThat(reconciles(b)).isZero();
                assertThat(a.metrics().render()).contains("parley_operator_reconciles_total{kind=\"SfuPool\",result=\"success\"}");

                Instant stopped = Instant.now();
                a.close();
                await().atMost(Duration.ofSeconds(60)).until(() -> "replica-b".equals(holder(client)));
                Duration failover = Duration.between(stopped, Instant.now());
                client.resources(SfuPool.class).inNamespace(NS).resource(Pools.sfuPool(NS, "second", "r-le", 2, 4)).create();
                await().atMost(Duration.ofSeconds(60)).until(() -> Pools.podNames(client, NS, "sfu", "second").size() == 2);
                assertThat(reconciles(b)).isPositive();
                System.out.println("LeaderElectionTest: lease taken over " + failover.toMillis() + " ms after the leader stopped");
            } finally {
                b.close();
                registry.close();
            }
        } finally {
            server.destroy();
        }
    }

    private static ParleyOperator replica(KubernetesClient client, EtcdProcess etcd, EtcdRegistry registry, String identity) {
        OperatorConfig c = OperatorConfig.forTests(etcd.endpoint(), Duration.ofMillis(500));
        return new ParleyOperator(client, c, registry, registry, registry, new HttpDrainSignal(c.internalSecret()), Instant::now,
                o -> o.withSSABasedCreateUpdateMatchForDependentResources(false)
                        .withUseSSAToPatchPrimaryResource(false)
                        .checkingCRDAndValidateLocalModel(false)
                        // short lease so the failover fits a unit test; never System.exit on losing it
                        .withLeaderElectionConfiguration(new LeaderElectionConfiguration("parley-operator", LEASE_NS,
                                Duration.ofSeconds(4), Duration.ofSeconds(3), Duration.ofMillis(500), identity, null, false)));
    }

    private static String holder(KubernetesClient client) {
        Lease l = client.leases().inNamespace(LEASE_NS).withName("parley-operator").get();
        return l == null || l.getSpec() == null ? null : l.getSpec().getHolderIdentity();
    }

    private static double reconciles(ParleyOperator op) {
        return op.metrics().value("parley_operator_reconciles_total", OperatorMetrics.labels("kind", "SfuPool", "result", "success"));
    }
}
