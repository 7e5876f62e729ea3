package dev.parley.operator.reconcile;

import dev.parley.operator.config.RecordingSettings;
import dev.parley.operator.crd.ParleyApi;
import dev.parley.operator.crd.RecordingJob;
import dev.parley.operator.crd.RecordingJobSpec;
import dev.parley.operator.crd.RecordingOutput;
import dev.parley.operator.registry.RecorderProgressSource;
import dev.parley.operator.registry.RecordingRequest;
import dev.parley.operator.registry.RegistryUnavailableException;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the controller's recording request keys ({@code /parley/v1/recordings/{job}/request}) into RecordingJob
 * resources named after the job, which {@link RecordingJobReconciler} then runs. It only creates: an existing
 * RecordingJob is never changed (a stop reaches the recorder through the controller's state-report answer), and
 * a create that loses to another replica (409) is fine. The keys belong to the controller, which removes them
 * once the job is final; a poll, because the set is small and a missed watch event must not lose a recording.
 */
public final class RecordingRequestBridge implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RecordingRequestBridge.class);
    /** RecordingJob names become pod names {@code rec-{name}-g{n}}: keep them DNS-1123 labels within 63 chars. */
    private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9]{0,48}[a-z0-9])?");
    public static final String LABEL_MEETING = "parley.dev/meeting";
    public static final String ANNOTATION_TENANT = "parley.dev/tenant";
    public static final String ANNOTATION_REQUESTED_AT = "parley.dev/requested-at";

    private final KubernetesClient client;
    private final RecorderProgressSource source;
    private final RecordingSettings settings;
    private final Duration period;
    private final ScheduledExecutorService exec = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "recording-requests");
        t.setDaemon(true);
        return t;
    });

    public RecordingRequestBridge(KubernetesClient client, RecorderProgressSource source,
                                  RecordingSettings settings, Duration period) {
        this.client = client;
        this.source = source;
        this.settings = settings;
        this.period = period;
    }

    public void start() {
        if (!settings.enabled()) {
            LOG.warn("PARLEY_RECORDING_BUCKET is not set: recording requests from the controller are not turned into RecordingJobs");
            return;
        }
        exec.scheduleWithFixedDelay(this::round, 0, period.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The RecordingJob name for a job id, or null if the id can't be one. */
    public static String jobName(String jobId) {
        String n = jobId.toLowerCase(Locale.ROOT);
        return NAME.matcher(n).matches() ? n : null;
    }

    void round() {
        try {
            for (RecordingRequest r : source.requests()) {
                ensure(r);
            }
        } catch (RegistryUnavailableException e) {
            LOG.warn("recording requests unreadable: {}", e.getMessage());
        } catch (RuntimeException e) {
            LOG.warn("recording request round failed: {}", e.toString());
        }
    }

    /** Creates the job's RecordingJob if it does not exist; never touches an existing one. */
    void ensure(RecordingRequest r) {
        String name = jobName(r.jobId());
        if (name == null) {
            LOG.warn("recording request with unusable job id {}; skipped", r.jobId());
            return;
        }
        var resource = client.resources(RecordingJob.class).inNamespace(settings.namespace()).withName(name);
        if (resource.get() != null) {
            return;
        }
        RecordingJob job = new RecordingJob();
        var meta = new ObjectMetaBuilder().withName(name).withNamespace(settings.namespace())
                .withLabels(Map.of(ParleyApi.LABEL_MANAGED_BY, "parley-operator"));
        if (r.tenantId() != null) {
            meta.addToAnnotations(ANNOTATION_TENANT, r.tenantId());
        }
        if (r.requestedAt() != null) {
            meta.addToAnnotations(ANNOTATION_REQUESTED_AT, r.requestedAt());
        }
        job.setMetadata(meta.build());
        RecordingJobSpec spec = new RecordingJobSpec();
        spec.jobId = r.jobId();
        spec.meetingId = r.meetingId();
        spec.region = r.region();
        spec.stopRequested = r.stopRequested() ? Boolean.TRUE : null;
        spec.output = new RecordingOutput();
        spec.output.bucket = settings.bucket();
        spec.output.prefix = settings.prefix();
        spec.output.endpoint = settings.endpoint();
        spec.output.credentialsSecret = settings.credentialsSecret();
        job.setSpec(spec);
        try {
            client.resources(RecordingJob.class).inNamespace(settings.namespace()).resource(job).create();
            LOG.info("recording job {} of meeting {}: RecordingJob {}/{} created", r.jobId(), r.meetingId(),
                    settings.namespace(), name);
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
        }
    }

    @Override
    public void close() {
        exec.shutdownNow();
    }
}
