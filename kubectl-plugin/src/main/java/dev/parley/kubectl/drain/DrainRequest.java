package dev.parley.kubectl.drain;

import dev.parley.operator.crd.ParleyApi;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.PodResource;
import java.util.HashMap;
import java.util.function.UnaryOperator;

/** Asks the operator to drain: the annotations {@code drain-requested} (reason) and optionally {@code drain-timeout-seconds}. */
public final class DrainRequest {
    private DrainRequest() {
    }

    /** Writes the annotations. The operator updates these pods too: the read-modify-write is retried on a conflict. */
    public static void send(PodResource pod, String reason, Integer timeoutSeconds) {
        for (int attempt = 1; ; attempt++) {
            try {
                pod.edit(annotate(reason, timeoutSeconds));
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409 || attempt >= 10) {
                    throw e;
                }
            }
        }
    }

    /**
     * {@code --dry-run=server}: the same change sent with {@code dryRun=All}, so the API server runs validation,
     * admission and RBAC on it and persists nothing.
     */
    public static void sendDryRun(PodResource pod, String reason, Integer timeoutSeconds) {
        pod.dryRun().edit(annotate(reason, timeoutSeconds));
    }

    private static UnaryOperator<Pod> annotate(String reason, Integer timeoutSeconds) {
        return x -> {
            if (x.getMetadata().getAnnotations() == null) {
                x.getMetadata().setAnnotations(new HashMap<>());
            }
            x.getMetadata().getAnnotations().put(ParleyApi.ANNOTATION_DRAIN_REQUESTED, reason);
            if (timeoutSeconds != null) {
                x.getMetadata().getAnnotations().put(ParleyApi.ANNOTATION_DRAIN_TIMEOUT, String.valueOf(timeoutSeconds));
            }
            return x;
        };
    }
}
