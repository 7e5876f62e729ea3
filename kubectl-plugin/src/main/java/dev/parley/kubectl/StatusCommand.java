package dev.parley.kubectl;

import dev.parley.kubectl.output.Documents;
import dev.parley.kubectl.output.OutputFormat;
import dev.parley.kubectl.output.OutputOptions;
import dev.parley.kubectl.output.Table;
import dev.parley.kubectl.status.StatusReport;
import dev.parley.kubectl.status.StatusReport.PodRow;
import dev.parley.kubectl.status.StatusReport.PoolRow;
import dev.parley.kubectl.status.StatusReport.RegionRow;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** Regions, pools and pods with state, drain phase and load, as the operator last recorded them in status. */
@Command(name = "status", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Show regions, pools and pods with state, drain phase and load (from the custom resources' status).",
        footer = {"%nExamples:",
                "  kubectl parley status -n parley-system",
                "  kubectl parley status -A -o wide        # + last decision and reason, egress, pps, subscriptions",
                "  kubectl parley status -o json | jq '.pods[] | select(.state==\"DRAINING\")'"})
public final class StatusCommand implements Callable<Integer> {
    @Mixin
    KubeOptions kube;

    @Mixin
    OutputOptions output;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        StatusReport report;
        try (KubernetesClient c = kube.client()) {
            report = StatusReport.read(c, kube.allNamespaces ? null : kube.namespace(c));
        }
        OutputFormat format = output.format();
        if (format.structured()) {
            Documents.write(out, format, report);
            return 0;
        }
        boolean wide = format == OutputFormat.WIDE;
        Table regions = new Table(kube.allNamespaces ? List.of("NAMESPACE", "REGION", "NAME", "READY", "SIGNALING", "TURN")
                : List.of("REGION", "NAME", "READY", "SIGNALING", "TURN"));
        for (RegionRow r : report.regions()) {
            List<String> row = new ArrayList<>();
            if (kube.allNamespaces) {
                row.add(r.namespace());
            }
            row.addAll(List.of(s(r.region()), r.name(), r.ready(), s(r.signalingHost()), s(r.turnHost())));
            regions.add(row);
        }
        List<String> poolHeaders = new ArrayList<>(List.of("REGION", "POOL", "KIND", "REPLICAS", "READY", "DRAINING", "DESIRED", "LOAD"));
        if (kube.allNamespaces) {
            poolHeaders.addFirst("NAMESPACE");
        }
        if (wide) {
            poolHeaders.addAll(List.of("LAST DECISION", "REASON"));
        }
        Table pools = new Table(poolHeaders);
        for (PoolRow p : report.pools()) {
            List<String> row = new ArrayList<>(List.of(s(p.region()), p.pool(), p.kind(), s(p.replicas()), s(p.ready()),
                    s(p.draining()), s(p.desired()), s(p.averageLoad())));
            if (kube.allNamespaces) {
                row.addFirst(p.namespace());
            }
            if (wide) {
                row.add(s(p.lastDecision()));
                row.add(s(p.lastDecisionReason()));
            }
            pools.add(row);
        }
        List<String> podHeaders = new ArrayList<>(List.of("POOL", "POD", "STATE", "DRAIN", "LOAD", "CONNS"));
        if (kube.allNamespaces) {
            podHeaders.addFirst("NAMESPACE");
        }
        if (wide) {
            podHeaders.addAll(List.of("EGRESS_BPS", "PPS", "SUBS", "RELAYED_BPS"));
        }
        Table pods = new Table(podHeaders);
        for (PodRow p : report.pods()) {
            List<String> row = new ArrayList<>(List.of(p.pool(), s(p.pod()), s(p.state()), s(p.drainPhase()), s(p.load()),
                    s(p.connections())));
            if (kube.allNamespaces) {
                row.addFirst(p.namespace());
            }
            if (wide) {
                row.addAll(List.of(s(p.egressBps()), s(p.pps()), s(p.subscriptions()), s(p.relayedBps())));
            }
            pods.add(row);
        }
        out.println("REGIONS");
        regions.print(out);
        out.println();
        out.println("POOLS");
        pools.print(out);
        out.println();
        out.println("PODS");
        pods.print(out);
        return 0;
    }

    private static String s(Object o) {
        return o == null ? "-" : String.valueOf(o);
    }
}
