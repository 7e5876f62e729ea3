package dev.parley.operator.reconcile;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Writes core/v1 Events so decisions and drain phases show up in {@code kubectl describe} and {@code get events}. */
public final class EventRecorder {
    private static final Logger LOG = LoggerFactory.getLogger(EventRecorder.class);
    private static final AtomicLong SEQ = new AtomicLong();
    private final KubernetesClient client;

    public EventRecorder(KubernetesClient client) {
        this.client = client;
    }

    public void normal(HasMetadata about, String reason, String message) {
        record(about, "Normal", reason, message);
    }

    public void warning(HasMetadata about, String reason, String message) {
        record(about, "Warning", reason, message);
    }

    private void record(HasMetadata about, String type, String reason, String message) {
        LOG.info("{} {}/{}: {} {}", type, about.getKind(), about.getMetadata().getName(), reason, message);
        String now = Instant.now().toString();
        String name = about.getMetadata().getName() + "." + Long.toHexString(System.currentTimeMillis())
                + Long.toHexString(SEQ.incrementAndGet()).toLowerCase(Locale.ROOT);
        try {
            client.v1().events().inNamespace(about.getMetadata().getNamespace()).resource(new EventBuilder()
                    .withNewMetadata().withName(name).withNamespace(about.getMetadata().getNamespace()).endMetadata()
                    .withInvolvedObject(new ObjectReferenceBuilder()
                            .withApiVersion(about.getApiVersion()).withKind(about.getKind())
                            .withName(about.getMetadata().getName()).withNamespace(about.getMetadata().getNamespace())
                            .withUid(about.getMetadata().getUid()).build())
                    .withType(type).withReason(reason).withMessage(message)
                    .withFirstTimestamp(now).withLastTimestamp(now).withCount(1)
                    .withNewSource().withComponent("parley-operator").endSource()
                    .withReportingComponent("parley-operator")
                    .build()).create();
        } catch (KubernetesClientException e) {
            LOG.warn("could not record event {} on {}: {}", reason, about.getMetadata().getName(), e.getMessage());
        }
    }
}
