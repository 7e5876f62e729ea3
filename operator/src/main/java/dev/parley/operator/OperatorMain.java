package dev.parley.operator;

import dev.parley.operator.registry.EtcdRegistry;
import dev.parley.operator.registry.HttpDrainSignal;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@code java -jar operator.jar}: configuration from the environment (docs/operator.md). */
public final class OperatorMain {
    private static final Logger LOG = LoggerFactory.getLogger(OperatorMain.class);

    private OperatorMain() {
    }

    public static void main(String[] args) {
        OperatorConfig config = OperatorConfig.fromEnv(System.getenv());
        // Effective configuration, without the internal secret's value.
        LOG.info("parley-operator: etcd={} sfuImage={} turnImage={} recorderImage={} resync={} leaderElection={} "
                        + "leaseNamespace={} watchNamespace={} internalSecret={}", config.etcdEndpoints(), config.pods().sfuImage(),
                config.pods().turnImage(), config.pods().recorderImage(), config.resync(), config.leaderElection(),
                config.leaseNamespace(), config.watchNamespace() == null ? "(all)" : config.watchNamespace(),
                config.internalSecret().isEmpty() ? "(unset)" : "(set)");
        KubernetesClient client = new KubernetesClientBuilder().build();
        EtcdRegistry registry = EtcdRegistry.connect(config.etcdEndpoints());
        ParleyOperator op = new ParleyOperator(client, config, registry, registry, registry,
                new HttpDrainSignal(config.internalSecret()), Instant::now, o -> { });
        op.operator().installShutdownHook(Duration.ofSeconds(30));
        HealthServer health = HealthServer.start(System.getenv().getOrDefault("PARLEY_BIND_ADDRESS", "0.0.0.0"),
                Integer.parseInt(System.getenv().getOrDefault("PARLEY_HEALTH_PORT", "8080")), op.metrics()::render);
        op.start();
        health.ready();
    }
}
