package dev.parley.kubectl;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import dev.parley.operator.crd.MediaRegion;
import dev.parley.operator.crd.PodLoadSummary;
import dev.parley.operator.crd.PoolStatus;
import dev.parley.operator.crd.SfuPool;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Regions, pools and pods with state, drain phase and load, as the operator last recorded them in status. */
@Command(name = "status", mixinStandardHelpOptions = true, description = "Show regions, pools and pods with state and load.")
public final class StatusCommand implements Callable<Integer> {
    @Mixin
    KubeOptions kube;

    @Option(names = {"-o", "--output"}, description = "Output format: wide, json or yaml (default: table).")
    String output;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** One row per pod; the same rows back the table and the json/yaml output. */
    record PodRow(String namespace, String region, String pool, String kind, String pod, String state, String drainPhase,
                  Double load, Long connections, Long egressBps, Long pps, Long subscriptions, Long relayedBps) {
    }

    record PoolRow(String namespace, String region, String pool, String kind, Integer replicas, Integer ready,
                   Integer draining, Integer desired, Double averageLoad, String ready_condition, String lastDecision,
                   String lastDecisionReason) {
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (output != null && !List.of("wide", "json", "yaml").contains(output)) {
            spec.commandLine().getErr().println("error: -o must be wide, json or yaml");
            return 2;
        }
        try (KubernetesClient c = kube.client()) {
            List<MediaRegion> regions = kube.allNamespaces ? c.resources(MediaRegion.class).inAnyNamespace().list().getItems()
                    : c.resources(MediaRegion.class).inNamespace(kube.namespace(c)).list().getItems();
            List<SfuPool> pools = kube.allNamespaces ? c.resources(SfuPool.class).inAnyNamespace().list().getItems()
                    : c.resources(SfuPool.class).inNamespace(kube.namespace(c)).list().getItems();
            List<PoolRow> poolRows = new ArrayList<>();
            List<PodRow> podRows = new ArrayList<>();
            for (MediaRegion r : regions) {
                if (r.getStatus() != null && r.getStatus().turn != null) {
                    add(r.getMetadata().getNamespace(), r.getSpec().region, r.getMetadata().getName() + "-turn", "TURN",
                            r.getStatus().turn, poolRows, podRows);
                }
            }
            for (SfuPool p : pools) {
                add(p.getMetadata().getNamespace(), p.getSpec().region, p.getMetadata().getName(), "SFU", p.getStatus(),
                        poolRows, podRows);
            }
            if ("json".equals(output) || "yaml".equals(output)) {
                Map<String, Object> doc = new LinkedHashMap<>();
                List<Map<String, Object>> rs = new ArrayList<>();
                for (MediaRegion r : regions) {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("namespace", r.getMetadata().getNamespace());
                    m.put("name", r.getMetadata().getName());
                    m.put("region", r.getSpec().region);
                    m.put("signalingHost", r.getSpec().signalingHost);
                    m.put("turnHost", r.getSpec().turnHost);
                    m.put("conditions", r.getStatus() == null ? List.of() : r.getStatus().conditions);
                    rs.add(m);
                }
                doc.put("regions", rs);
                doc.put("pools", poolRows);
                doc.put("pods", podRows);
                ObjectMapper m = "json".equals(output) ? new ObjectMapper()
                        : new ObjectMapper(new YAMLFactory().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER));
                out.println(m.enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(doc).stripTrailing());
                return 0;
            }
            boolean wide = "wide".equals(output);
            Table regionsTable = new Table(kube.allNamespaces ? List.of("NAMESPACE", "REGION", "NAME", "READY", "SIGNALING", "TURN")
                    : List.of("REGION", "NAME", "READY", "SIGNALING", "TURN"));
            for (MediaRegion r : regions) {
                List<String> row = new ArrayList<>();
                if (kube.allNamespaces) {
                    row.add(r.getMetadata().getNamespace());
                }
                row.add(r.getSpec().region);
                row.add(r.getMetadata().getName());
                row.add(r.getStatus() == null ? "Unknown" : condition(r.getStatus().conditions, "Ready"));
                row.add(r.getSpec().signalingHost == null ? "-" : r.getSpec().signalingHost);
                row.add(r.getSpec().turnHost == null ? "-" : r.getSpec().turnHost);
                regionsTable.add(row);
            }
            Table poolsTable = new Table(wide
                    ? List.of("REGION", "POOL", "KIND", "REPLICAS", "READY", "DRAINING", "DESIRED", "LOAD", "LAST DECISION", "REASON")
                    : List.of("REGION", "POOL", "KIND", "REPLICAS", "READY", "DRAINING", "DESIRED", "LOAD"));
            for (PoolRow p : poolRows) {
                List<String> row = new ArrayList<>(List.of(p.region(), p.pool(), p.kind(), s(p.replicas()), s(p.ready()),
                        s(p.draining()), s(p.desired()), s(p.averageLoad())));
                if (wide) {
                    row.add(p.lastDecision() == null ? "-" : p.lastDecision());
                    row.add(p.lastDecisionReason() == null ? "-" : p.lastDecisionReason());
                }
                poolsTable.add(row);
            }
            Table podsTable = new Table(wide
                    ? List.of("POOL", "POD", "STATE", "DRAIN", "LOAD", "CONNS", "EGRESS_BPS", "PPS", "SUBS", "RELAYED_BPS")
                    : List.of("POOL", "POD", "STATE", "DRAIN", "LOAD", "CONNS"));
            for (PodRow p : podRows) {
                List<String> row = new ArrayList<>(List.of(p.pool(), p.pod(), p.state(), p.drainPhase() == null ? "-" : p.drainPhase(),
                        s(p.load()), s(p.connections())));
                if (wide) {
                    row.addAll(List.of(s(p.egressBps()), s(p.pps()), s(p.subscriptions()), s(p.relayedBps())));
                }
                podsTable.add(row);
            }
            out.println("REGIONS");
            regionsTable.print(out);
            out.println();
            out.println("POOLS");
            poolsTable.print(out);
            out.println();
            out.println("PODS");
            podsTable.print(out);
            return 0;
        }
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
            long conns = (p.transports == null ? 0 : p.transports) + (p.allocations == null ? 0 : p.allocations);
            pods.add(new PodRow(ns, region, pool, kind, p.name, p.state, p.drainPhase, p.load, conns, p.egressBps, p.pps,
                    p.subscriptions, p.relayedBps));
        }
    }

    private static String condition(List<Condition> cs, String type) {
        return cs == null ? "Unknown" : cs.stream().filter(c -> type.equals(c.getType())).map(Condition::getStatus)
                .findFirst().orElse("Unknown");
    }

    private static String s(Object o) {
        return o == null ? "-" : String.valueOf(o);
    }
}
