package dev.parley.kubectl.drain;

import dev.parley.kubectl.status.StatusReport;
import dev.parley.operator.crd.DrainRecord;
import dev.parley.operator.crd.ParleyApi;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Follows a drain from the pod's phase annotation and the pool's status until the pod is gone or the wait ends,
 * printing one progress line per change (phase, sessions left) to {@code progress}.
 */
public final class DrainWatch {
    private final KubernetesClient client;
    private final Pod pod;
    private final PrintWriter progress;

    public DrainWatch(KubernetesClient client, Pod pod, PrintWriter progress) {
        this.client = client;
        this.pod = pod;
        this.progress = progress;
    }

    public DrainResult.Wait follow(Duration waitTimeout, Duration pollInterval) throws InterruptedException {
        String ns = pod.getMetadata().getNamespace();
        String name = pod.getMetadata().getName();
        long start = System.nanoTime();
        long deadline = start + waitTimeout.toNanos();
        List<DrainResult.PhaseSeen> phases = new ArrayList<>();
        String last = null;
        Long sessions = null;
        while (System.nanoTime() < deadline) {
            Pod now = client.pods().inNamespace(ns).withName(name).get();
            double t = (System.nanoTime() - start) / 1e9;
            if (now == null || now.getMetadata().getDeletionTimestamp() != null) {
                progress.printf("pod/%s drained and removed after %.1fs%n", name, t);
                progress.flush();
                return new DrainResult.Wait("removed", round(t), phases, last, sessions, finished(name));
            }
            String ph = DrainPlanner.annotation(now, ParleyApi.ANNOTATION_DRAIN_PHASE);
            if (ph != null && !ph.equals(last) && ph.length() > 2) {
                progress.printf("  phase %s/5 %s (%.1fs)%n", ph.substring(0, 1), ph.substring(2), t);
                phases.add(new DrainResult.PhaseSeen(ph, round(t)));
                last = ph;
            }
            Long left = sessionsLeft(now);
            if (left != null && !left.equals(sessions)) {
                progress.printf("  sessions left: %d (%.1fs)%n", left, t);
                sessions = left;
            }
            progress.flush();
            Thread.sleep(pollInterval.toMillis());
        }
        return new DrainResult.Wait("timed-out", round((System.nanoTime() - start) / 1e9), phases, last, sessions, null);
    }

    /** Connections the operator last reported for the pod (transports or allocations); null when not reported. */
    private Long sessionsLeft(Pod now) {
        return MediaPool.of(client, now).flatMap(p -> p.summary(now.getMetadata().getName()))
                .map(StatusReport::connections).orElse(null);
    }

    private DrainResult.Finished finished(String name) {
        Optional<MediaPool> pool = MediaPool.of(client, pod);
        return pool.filter(p -> p.status() != null).flatMap(p -> p.status().recentDrains.stream()
                        .filter(d -> name.equals(d.pod)).findFirst())
                .map((DrainRecord d) -> new DrainResult.Finished(d.outcome, d.durationSeconds, d.remainingConnections))
                .orElse(null);
    }

    private static double round(double s) {
        return Math.round(s * 10) / 10.0;
    }
}
