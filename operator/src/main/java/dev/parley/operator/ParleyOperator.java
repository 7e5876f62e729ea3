package dev.parley.operator;

import dev.parley.operator.metrics.OperatorMetrics;
import dev.parley.operator.model.PodFactory;
import dev.parley.operator.reconcile.EventRecorder;
import dev.parley.operator.reconcile.MediaRegionReconciler;
import dev.parley.operator.reconcile.PoolReconcile;
import dev.parley.operator.reconcile.RecordingJobReconciler;
import dev.parley.operator.reconcile.RecordingRequestBridge;
import dev.parley.operator.reconcile.SfuPoolReconciler;
import dev.parley.operator.registry.DrainSignal;
import dev.parley.operator.registry.LoadSource;
import dev.parley.operator.registry.RecorderProgressSource;
import dev.parley.operator.registry.RegistryEditor;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.ConfigurationServiceOverrider;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import java.time.Instant;
import java.util.function.Consumer;
import java.util.function.Supplier;

/** Wires the three reconcilers into a JOSDK {@link Operator}; used by {@link OperatorMain} and by tests. */
public final class ParleyOperator implements AutoCloseable {
    private final Operator operator;
    private final OperatorMetrics metrics = new OperatorMetrics();
    private final RecordingRequestBridge requests;

    /**
     * @param extra extra JOSDK settings (tests turn server-side apply off for the mock API server)
     */
    public ParleyOperator(KubernetesClient client, OperatorConfig config, LoadSource loads, RegistryEditor registry,
                          RecorderProgressSource recordings, DrainSignal drain, Supplier<Instant> clock,
                          Consumer<ConfigurationServiceOverrider> extra) {
        this.operator = new Operator(o -> {
            o.withKubernetesClient(client);
            o.withCloseClientOnStop(false);
            o.withMetrics(metrics);
            if (config.leaderElection()) {
                o.withLeaderElectionConfiguration(new LeaderElectionConfiguration("parley-operator", config.leaseNamespace()));
            }
            extra.accept(o);
        });
        EventRecorder events = new EventRecorder(client);
        PodFactory pods = new PodFactory(config.pods());
        PoolReconcile pools = new PoolReconcile(client, loads, registry, drain, events, clock, metrics);
        register(new SfuPoolReconciler(pools, pods, config.resync()), config);
        register(new MediaRegionReconciler(pools, pods, config.resync()), config);
        register(new RecordingJobReconciler(client, pods, recordings, events, config.resync()), config);
        requests = new RecordingRequestBridge(client, recordings, config.recordings(), config.resync());
    }

    private <P extends io.fabric8.kubernetes.api.model.HasMetadata> void register(
            io.javaoperatorsdk.operator.api.reconciler.Reconciler<P> r, OperatorConfig config) {
        if (config.watchNamespace() == null || config.watchNamespace().isBlank()) {
            operator.register(r);
        } else {
            operator.register(r, o -> o.settingNamespaces(config.watchNamespace().split(",")));
        }
    }

    public void start() {
        operator.start();
        requests.start();
    }

    /** Prometheus metrics of this operator instance ({@code /metrics} on the health port). */
    public OperatorMetrics metrics() {
        return metrics;
    }

    public Operator operator() {
        return operator;
    }

    @Override
    public void close() {
        requests.close();
        operator.stop();
    }
}
