package dev.parley.operator.reconcile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.operator.crd.MissingRange;
import dev.parley.operator.crd.ParleyApi;
import dev.parley.operator.crd.RecordingJob;
import dev.parley.operator.crd.RecordingJobStatus;
import dev.parley.operator.crd.RecordingPhase;
import dev.parley.operator.model.Conditions;
import dev.parley.operator.model.PodFactory;
import dev.parley.operator.model.RecordingModel;
import dev.parley.operator.registry.RecorderProgress;
import dev.parley.operator.registry.RecorderProgressSource;
import dev.parley.operator.registry.RegistryUnavailableException;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * RecordingJob: one recorder pod per generation ({@code rec-{job}-g{n}}), retry with generation + 1 on
 * failure up to the limit, status mirrored from the recorder's runner key (live) or termination message
 * (final). The finalizer (JOSDK adds it because this is a {@link Cleaner}) removes pods and the runner key.
 * Reconciles when the job or its recorder pod changes (pod informer, owner reference → job), and every
 * {@code resync} while the job is not final, to mirror the runner key from etcd.
 */
@ControllerConfiguration(name = "recordingjob")
public class RecordingJobReconciler implements Reconciler<RecordingJob>, Cleaner<RecordingJob> {
    private static final Logger LOG = LoggerFactory.getLogger(RecordingJobReconciler.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final KubernetesClient client;
    private final PodFactory podFactory;
    private final RecorderProgressSource progress;
    private final EventRecorder events;
    private final Duration resync;
    private final RecordingModel model = new RecordingModel();
    private final LastStatus<RecordingJobStatus> lastStatus = new LastStatus<>();
    private PodCache<RecordingJob> pods;

    public RecordingJobReconciler(KubernetesClient client, PodFactory podFactory, RecorderProgressSource progress,
                                  EventRecorder events, Duration resync) {
        this.client = client;
        this.podFactory = podFactory;
        this.progress = progress;
        this.events = events;
        this.resync = resync;
    }

    @Override
    public List<EventSource<?, RecordingJob>> prepareEventSources(EventSourceContext<RecordingJob> context) {
        pods = PodCache.forComponent(context, ParleyApi.COMPONENT_RECORDER);
        return List.of(pods.eventSource());
    }

    public static String podName(RecordingJob job, int generation) {
        return "rec-" + job.getMetadata().getName() + "-g" + generation;
    }

    @Override
    public UpdateControl<RecordingJob> reconcile(RecordingJob job, Context<RecordingJob> context) {
        String ns = job.getMetadata().getNamespace();
        RecordingJobStatus stored = lastStatus.previous(job, job.getStatus());
        RecordingJobStatus prev = stored == null ? new RecordingJobStatus() : stored;
        int generation = prev.generation == null ? 0 : prev.generation;
        int failed = prev.failedGenerations == null ? 0 : prev.failedGenerations;

        OwnedPods owned = pods.of(job);
        Pod pod = generation == 0 ? null : owned.get(podName(job, generation)).orElse(null);
        RecordingModel.PodState podState = podState(pod);
        Optional<RecorderProgress> live = Optional.empty();
        try {
            live = progress.progress(job.getSpec().jobId).filter(p -> p.generation() == prev.generation);
        } catch (RegistryUnavailableException e) {
            LOG.warn("registry unavailable for recording {}: {}", job.getSpec().jobId, e.getMessage());
        }
        JsonNode report = terminationReport(pod);
        String reported = report != null && report.hasNonNull("phase") ? report.get("phase").asText()
                : live.map(RecorderProgress::phase).orElse(null);

        RecordingModel.Decision d = model.decide(new RecordingModel.Observed(generation, podState, prev.phase, reported,
                job.getSpec().retryLimit, failed));

        RecordingJobStatus out = new RecordingJobStatus();
        out.conditions = new ArrayList<>(prev.conditions == null ? List.of() : prev.conditions);
        out.segments = prev.segments;
        out.missingRanges = prev.missingRanges == null ? new ArrayList<>() : prev.missingRanges;
        out.generation = d.generation();
        out.failedGenerations = d.failedGenerations();
        out.phase = d.phase();
        out.message = d.message();
        out.observedGeneration = job.getMetadata().getGeneration();

        switch (d.action()) {
            case START_GENERATION -> {
                if (pod != null && d.generation() != generation) {
                    client.pods().inNamespace(ns).withName(pod.getMetadata().getName()).delete();
                    owned.deleted(pod.getMetadata().getName());
                }
                String name = podName(job, d.generation());
                if (owned.get(name).isEmpty()) {
                    owned.created(client.pods().inNamespace(ns).resource(podFactory.recorderPod(job, name, d.generation())).create());
                }
                if (d.generation() == 1) {
                    events.normal(job, "RecorderStarted", "generation 1: pod " + name);
                } else {
                    events.warning(job, "RecorderRetry", d.message() + ": pod " + name);
                }
                out.recorderPod = name;
            }
            case GIVE_UP -> {
                events.warning(job, "RecordingFailed", d.message());
                out.recorderPod = prev.recorderPod;
            }
            case NONE -> out.recorderPod = prev.recorderPod;
        }
        if (d.action() == RecordingModel.Action.NONE && !d.phase().equals(prev.phase) && d.phase().terminal()) {
            events.normal(job, "Recording" + cap(d.phase().wire()), d.message());
        }

        // Mirror segments and gaps: the final report wins over the live runner key.
        if (report != null) {
            out.segments = report.path("segments").asLong(out.segments == null ? 0 : out.segments);
            if (report.has("missing_ranges")) {
                out.missingRanges = new ArrayList<>();
                for (JsonNode r : report.get("missing_ranges")) {
                    out.missingRanges.add(new MissingRange(r.path("from_ms").asLong(), r.path("to_ms").asLong(),
                            r.hasNonNull("track") ? r.get("track").asText() : null));
                }
            }
        } else if (live.isPresent() && d.action() == RecordingModel.Action.NONE) {
            out.segments = live.get().segments();
            out.missingRanges = new ArrayList<>(live.get().missingRanges());
        }

        Long g = out.observedGeneration;
        Conditions.set(out.conditions, "Ready", out.phase == RecordingPhase.READY || out.phase == RecordingPhase.PARTIAL,
                out.phase.wire(), out.message, g);
        Conditions.set(out.conditions, "Failed", out.phase == RecordingPhase.FAILED,
                out.phase == RecordingPhase.FAILED ? "RetryLimitReached" : "NotFailed", out.message, g);
        Conditions.set(out.conditions, "Recording", out.phase == RecordingPhase.RECORDING, out.phase.wire(),
                "generation " + out.generation, g);
        StatusWriter.write(context, job, RecordingJob.class, out, RecordingJob::setStatus);
        lastStatus.computed(job, out);
        UpdateControl<RecordingJob> c = UpdateControl.noUpdate();
        // Pod changes arrive as events; the recorder's live progress is in etcd, which sends none: poll while running.
        return out.phase.terminal() ? c : c.rescheduleAfter(resync);
    }

    @Override
    public DeleteControl cleanup(RecordingJob job, Context<RecordingJob> context) {
        String ns = job.getMetadata().getNamespace();
        var pods = client.pods().inNamespace(ns).withLabel(ParleyApi.LABEL_RECORDING_JOB, job.getMetadata().getName());
        int n = pods.list().getItems().size();
        pods.delete();
        try {
            progress.removeRunner(job.getSpec().jobId);
        } catch (RegistryUnavailableException e) {
            // The runner key lives under the recorder's lease and expires with it.
            LOG.warn("could not remove runner key of {}: {}", job.getSpec().jobId, e.getMessage());
        }
        LOG.info("recording job {} deleted: removed {} recorder pods", job.getMetadata().getName(), n);
        lastStatus.forget(job);
        return DeleteControl.defaultDelete();
    }

    private static RecordingModel.PodState podState(Pod pod) {
        if (pod == null || pod.getMetadata().getDeletionTimestamp() != null) {
            return RecordingModel.PodState.NONE;
        }
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        if (phase == null || "Pending".equals(phase)) {
            return RecordingModel.PodState.PENDING;
        }
        return switch (phase) {
            case "Running" -> RecordingModel.PodState.RUNNING;
            case "Succeeded" -> RecordingModel.PodState.SUCCEEDED;
            case "Failed" -> RecordingModel.PodState.FAILED;
            default -> RecordingModel.PodState.PENDING;
        };
    }

    /** The recorder writes its final JSON report ({phase, segments, missing_ranges}) as the termination message. */
    private static JsonNode terminationReport(Pod pod) {
        if (pod == null || pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
            return null;
        }
        for (ContainerStatus cs : pod.getStatus().getContainerStatuses()) {
            if (cs.getState() != null && cs.getState().getTerminated() != null
                    && cs.getState().getTerminated().getMessage() != null) {
                try {
                    return JSON.readTree(cs.getState().getTerminated().getMessage());
                } catch (java.io.IOException e) {
                    LOG.warn("recorder {} left an unreadable termination message", pod.getMetadata().getName());
                }
            }
        }
        return null;
    }

    private static String cap(String s) {
        return Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }
}
