package dev.parley.kubectl.drain;

import dev.parley.kubectl.output.Table;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** The human-readable form of a {@link DrainPlan}; {@code wide} adds the candidates' egress and subscriptions. */
public final class DrainPlanText {
    private DrainPlanText() {
    }

    public static void print(PrintWriter out, DrainPlan plan, boolean wide) {
        DrainPlan.Target t = plan.pod();
        out.printf("pod/%s would be drained (dry run: %s, nothing changed)%n", t.name(), plan.dryRun());
        out.printf("  pool:        %s %s (region %s)%n", s(t.component()), s(t.pool()), s(t.region()));
        out.printf("  state:       %s, drain phase %s%n", s(t.state()), s(t.drainPhase()));
        DrainPlan.Sessions se = plan.sessions();
        out.printf("  sessions:    %s to move (transports %s, allocations %s, subscriptions %s, load %s)%n",
                se == null ? "unknown" : s(se.connections()), se == null ? "-" : s(se.transports()),
                se == null ? "-" : s(se.allocations()), se == null ? "-" : s(se.subscriptions()), se == null ? "-" : s(se.load()));
        DrainPlan.Budget b = plan.budget();
        out.printf("  budget:      %ss (%s), migration %ss%n", s(b.timeoutSeconds()),
                "flag".equals(b.timeoutSource()) ? "--timeout" : "pool's drain.timeoutSeconds", s(b.migrationSeconds()));
        DrainPlan.PdbEffect p = plan.pdb();
        out.printf("  pdb:         %s%s: serving pods %d now, %d while draining%s%n", s(p.name()), p.found() ? "" : " (not found)",
                p.servingPodsNow(), p.servingPodsDuringDrain(),
                p.maxUnavailable() == null ? "" : "; node drains may still evict " + p.maxUnavailable() + " of them");
        out.printf("  replacement: %s%n", p.replacementStarts() ? "the operator starts one while it drains" : "-");
        out.println();
        out.println("MOVE TO");
        Table moveTo = new Table(wide ? List.of("POD", "LOAD", "CONNS", "EGRESS_BPS", "SUBS") : List.of("POD", "LOAD", "CONNS"));
        for (DrainPlan.Candidate c : plan.moveTo()) {
            List<String> row = new ArrayList<>(List.of(c.pod(), s(c.load()), s(c.connections())));
            if (wide) {
                row.addAll(List.of(s(c.egressBps()), s(c.subscriptions())));
            }
            moveTo.add(row);
        }
        moveTo.print(out);
        if (!plan.actions().isEmpty()) {
            out.println();
            out.println("WOULD");
            plan.actions().forEach(a -> out.println("  " + a));
        }
        if (!plan.warnings().isEmpty()) {
            out.println();
            plan.warnings().forEach(w -> out.println("warning: " + w));
        }
        out.flush();
    }

    private static String s(Object o) {
        return o == null ? "-" : String.valueOf(o);
    }
}
