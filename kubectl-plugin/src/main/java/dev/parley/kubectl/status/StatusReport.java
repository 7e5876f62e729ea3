package dev.parley.kubectl.status;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.parley.kubectl.output.Documents;
import dev.parley.operator.crd.MediaRegion;
import dev.parley.operator.crd.PodLoadSummary;
import dev.parley.operator.crd.PoolStatus;
import dev.parley.operator.crd.SfuPool;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@code status} shows, as the operator last recorded it in the custom resources' status: the same rows back
 * the tables and the json/yaml document (kind {@code Status}, shape in docs/kubectl-parley.md).
 */
@JsonPropertyOrder({"apiVersion", "kind", "regions", "pools", "pods"})
public record StatusReport(String apiVersion, String kind, List<RegionRow> regions, List<PoolRow> pools, List<PodRow> pods) {

    public record RegionRow(String namespace, String name, String region, String ready, String signalingHost,
                            String turnHost, List<Condition> conditions) {
    }

    public record PoolRow(String namespace, String region, String pool, String kind, Integer replicas, Integer ready,
                          Integer draining, Integer desired, Double averageLoad, String readyCondition, String lastDecision,
                          String lastDecisionReason) {
    }

    /** {@code connections} = transports (SFU) + allocations (TURN), the CONNS column. */
    public record PodRow(String namespace, String region, String pool, String kind, String pod, String state, String drainPhase,
                         Double load, Long connections, Long egressBps, Long pps, Long subscriptions, Long relayedBps) {
    }

    /** Reads the regions and pools of one namespace, or of all when {@code namespace} is null. */
    public static StatusReport read(KubernetesClient c, String namespace) {
        List<MediaRegion> regions = namespace == null ? c.resources(MediaRegion.class).inAnyNamespace().list().getItems()
                : c.resources(MediaRegion.class).inNamespace(namespace).list().getItems();
        List<SfuPool> sfuPools = namespace == null ? c.resources(SfuPool.class).inAnyNamespace().list().getItems()
                : c.resources(SfuPool.class).inNamespace(namespace).list().getItems();
        List<RegionRow> regionRows = new ArrayList<>();
        List<PoolRow> poolRows = new ArrayList<>();
        List<PodRow> podRows = new ArrayList<>();
        for (MediaRegion r : regions) {
            regionRows.add(new RegionRow(r.getMetadata().getNamespace(), r.getMetadata().getName(), r.getSpec().region,
                    r.getStatus() == null ? "Unknown" : condition(r.getStatus().conditions, "Ready"),
                    r.getSpec().signalingHost, r.getSpec().turnHost,
                    r.getStatus() == null ? List.of() : r.getStatus().conditions));
            if (r.getStatus() != null && r.getStatus().turn != null) {
                add(r.getMetadata().getNamespace(), r.getSpec().region, r.getMetadata().getName() + "-turn", "TURN",
                        r.getStatus().turn, poolRows, podRows);
            }
        }
        for (SfuPool p : sfuPools) {
            add(p.getMetadata().getNamespace(), p.getSpec().region, p.getMetadata().getName(), "SFU", p.getStatus(),
                    poolRows, podRows);
        }
        return new StatusReport(Documents.API_VERSION, "Status", regionRows, poolRows, podRows);
    }

    private static void add(String ns, String region, String pool, String kind, PoolStatus st, List<PoolRow> pools,
                            List<PodRow> pods) {
        if (st == null) {
            pools.add(new PoolRow(ns, region, pool, kind, null, null, null, null, null, "Unknown", null, null));
            return;
        }
        pools.add(new PoolRow(ns, region, pool, kind, st.getReplicas(), st.readyReplicas, st.drainingReplicas, st.desiredReplicas,
                st.averageLoad, condition(st.conditions, "Ready"), st.autoscaler == null ? null : st.autoscaler.lastDecision,
                st.autoscaler == null ? null : st.autoscaler.lastDecisionReason));
        for (PodLoadSummary p : st.pods) {
            pods.add(new PodRow(ns, region, pool, kind, p.name, p.state, p.drainPhase, p.load, connections(p), p.egressBps,
                    p.pps, p.subscriptions, p.relayedBps));
        }
    }

    public static long connections(PodLoadSummary p) {
        return (p.transports == null ? 0 : p.transports) + (p.allocations == null ? 0 : p.allocations);
    }

    static String condition(List<Condition> cs, String type) {
        return cs == null ? "Unknown" : cs.stream().filter(c -> type.equals(c.getType())).map(Condition::getStatus)
                .findFirst().orElse("Unknown");
    }
}
