package dev.parley.kubectl.drain;

import dev.parley.kubectl.output.Documents;
import dev.parley.kubectl.status.StatusReport;
import dev.parley.operator.crd.ParleyApi;
import dev.parley.operator.crd.PodLoadSummary;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Builds a {@link DrainPlan} from reads only: the pod, its pool's spec and status, the pool's PDB and serving pods. */
public final class DrainPlanner {
    private DrainPlanner() {
    }

    /**
     * @param timeoutSeconds the --timeout flag, or null for the pool's own budget
     * @param dryRun "client" or "server"
     */
    public static DrainPlan plan(KubernetesClient c, Pod pod, String reason, Integer timeoutSeconds, String dryRun) {
        String ns = pod.getMetadata().getNamespace();
        String name = pod.getMetadata().getName();
        Map<String, String> labels = pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
        String component = labels.get(ParleyApi.LABEL_COMPONENT);
        String phase = annotation(pod, ParleyApi.ANNOTATION_DRAIN_PHASE);
        List<String> warnings = new ArrayList<>();

        Optional<MediaPool> pool = MediaPool.of(c, pod);
        if (pool.isEmpty()) {
            warnings.add("no SfuPool or MediaRegion in " + ns + " lists this pod: the operator may not drain it");
        }
        Optional<PodLoadSummary> me = pool.flatMap(p -> p.summary(name));
        String state = me.map(s -> s.state).orElse(null);
        DrainPlan.Sessions sessions = me.map(s -> new DrainPlan.Sessions(StatusReport.connections(s), s.transports, s.allocations,
                s.subscriptions, s.load)).orElse(null);
        if (pool.isPresent() && me.isEmpty()) {
            warnings.add("the operator has not reported this pod's load yet: sessions unknown");
        }
        List<DrainPlan.Candidate> moveTo = new ArrayList<>();
        if (pool.isPresent() && pool.get().status() != null) {
            for (PodLoadSummary p : pool.get().status().pods) {
                if (!name.equals(p.name) && "ACTIVE".equals(p.state) && p.drainPhase == null) {
                    moveTo.add(new DrainPlan.Candidate(p.name, p.load, StatusReport.connections(p), p.egressBps, p.subscriptions));
                }
            }
        }
        if (pool.isPresent() && moveTo.isEmpty()) {
            warnings.add("no other ACTIVE pod in pool " + pool.get().name() + ": sessions cannot move until the replacement "
                    + "registers; whatever is left when the budget ends is cut");
        }

        Integer poolTimeout = pool.map(MediaPool::drain).map(d -> d.timeoutSeconds).orElse(null);
        DrainPlan.Budget budget = new DrainPlan.Budget(timeoutSeconds != null ? timeoutSeconds : poolTimeout,
                timeoutSeconds != null ? "flag" : "pool", pool.map(MediaPool::drain).map(d -> d.migrationSeconds).orElse(null));

        DrainPlan.PdbEffect pdb = pdb(c, pod, component, pool, labels, warnings);

        List<String> actions = new ArrayList<>();
        if (phase != null) {
            warnings.add("already draining (phase " + phase + "): a drain would change nothing");
        } else {
            actions.add("annotate pod/" + name + " " + ParleyApi.ANNOTATION_DRAIN_REQUESTED + "=" + reason);
            if (timeoutSeconds != null) {
                actions.add("annotate pod/" + name + " " + ParleyApi.ANNOTATION_DRAIN_TIMEOUT + "=" + timeoutSeconds);
            }
            actions.add("operator: 1-draining (registry DRAINING, pod told), 2-unrouted (serving=false), 3-migrating (owners "
                    + "move sessions, up to migrationSeconds), 4-grace (rest of the budget), 5-cleanup (delete pod and entry)");
        }
        DrainPlan.Target target = new DrainPlan.Target(ns, name, component, pool.map(MediaPool::name).orElse(null),
                pool.map(MediaPool::region).orElse(labels.get(ParleyApi.LABEL_REGION)), state, phase, phase != null);
        return new DrainPlan(Documents.API_VERSION, "DrainPlan", dryRun, target, sessions, moveTo, budget, pdb, actions, warnings);
    }

    private static DrainPlan.PdbEffect pdb(KubernetesClient c, Pod pod, String component, Optional<MediaPool> pool,
                                           Map<String, String> labels, List<String> warnings) {
        String ns = pod.getMetadata().getNamespace();
        String poolName = pool.map(MediaPool::name).orElse(labels.get(ParleyApi.LABEL_POOL));
        // the operator names them <pool>-sfu (SFU) and <region>-turn (TURN, the pool's own name)
        String pdbName = poolName == null ? null : ParleyApi.COMPONENT_TURN.equals(component) ? poolName : poolName + "-sfu";
        PodDisruptionBudget found = pdbName == null ? null : c.policy().v1().podDisruptionBudget().inNamespace(ns).withName(pdbName).get();
        Map<String, String> selector = found != null && found.getSpec().getSelector() != null
                && found.getSpec().getSelector().getMatchLabels() != null ? found.getSpec().getSelector().getMatchLabels()
                : poolName == null ? Map.of(ParleyApi.LABEL_COMPONENT, String.valueOf(component), ParleyApi.LABEL_SERVING, "true")
                : Map.of(ParleyApi.LABEL_COMPONENT, String.valueOf(component), ParleyApi.LABEL_POOL, poolName,
                        ParleyApi.LABEL_SERVING, "true");
        List<Pod> serving = c.pods().inNamespace(ns).withLabels(selector).list().getItems().stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null).toList();
        boolean selected = serving.stream().anyMatch(p -> p.getMetadata().getName().equals(pod.getMetadata().getName()));
        int during = serving.size() - (selected ? 1 : 0);
        Integer min = pool.map(MediaPool::minReplicas).orElse(null);
        if (pdbName != null && found == null) {
            warnings.add("PodDisruptionBudget " + ns + "/" + pdbName + " not found: node drains are not limited for this pool");
        }
        if (min != null && during < min) {
            warnings.add("while it drains the pool serves with " + during + " pod(s), below minReplicas " + min
                    + ", until the replacement is ready");
        }
        String maxUnavailable = found == null || found.getSpec().getMaxUnavailable() == null ? null
                : String.valueOf(found.getSpec().getMaxUnavailable().getValue());
        Integer allowed = found == null || found.getStatus() == null ? null : found.getStatus().getDisruptionsAllowed();
        return new DrainPlan.PdbEffect(pdbName, found != null, maxUnavailable, allowed, serving.size(), during, min, pool.isPresent());
    }


    static String annotation(Pod p, String key) {
        return p.getMetadata().getAnnotations() == null ? null : p.getMetadata().getAnnotations().get(key);
    }
}
