package dev.parley.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.parley.operator.crd.RecordingJob;
import dev.parley.operator.reconcile.RecordingJobReconciler;
import dev.parley.operator.reconcile.RecordingRequestBridge;
import dev.parley.operator.support.OperatorHarness;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator's half of the recorder bridge: the controller's request key in a real etcd becomes exactly one
 * RecordingJob (Fabric8 mock API server, CRUD mode), which gets its generation-1 recorder pod as any other; later
 * poll rounds neither duplicate nor overwrite it, and an unreadable key does not block the others.
 */
class RecordingRequestBridgeTest {
    static OperatorHarness h;
    static final String NS = "default"; // OperatorConfig.forTests: recordings go to the operator's namespace

    @BeforeAll
    static void start() throws Exception {
        h = new OperatorHarness();
    }

    @AfterAll
    static void stop() throws Exception {
        h.close();
    }

    private static List<RecordingJob> jobs() {
        return h.client.resources(RecordingJob.class).inNamespace(NS).list().getItems();
    }

    private static String request(String job, String meeting, boolean stop) {
        return "{\"job_id\":\"" + job + "\",\"meeting_id\":\"" + meeting + "\",\"tenant_id\":\"t-1\",\"region\":\"eu1\","
                + "\"requested_at\":\"2026-11-30T19:00:00Z\",\"stop_requested\":" + stop + "}";
    }

    @Test
    void requestKeyBecomesExactlyOneRecordingJobWithItsRecorderPod() throws Exception {
        String job = UUID.randomUUID().toString();
        String meeting = UUID.randomUUID().toString();
        // an unreadable request next to it is skipped, not fatal
        h.registry.request("broken-" + job, "{not json");
        h.registry.request(job, request(job, meeting, false));

        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() ->
                h.client.resources(RecordingJob.class).inNamespace(NS).withName(job).get() != null);
        RecordingJob rj = h.client.resources(RecordingJob.class).inNamespace(NS).withName(job).get();
        assertThat(rj.getSpec().jobId).isEqualTo(job);
        assertThat(rj.getSpec().meetingId).isEqualTo(meeting);
        assertThat(rj.getSpec().region).isEqualTo("eu1");
        assertThat(rj.getSpec().output.bucket).isEqualTo("recordings");
        assertThat(rj.getSpec().stopRequested).isNull();
        assertThat(rj.getMetadata().getAnnotations()).containsEntry(RecordingRequestBridge.ANNOTATION_TENANT, "t-1");

        // the existing reconciler runs it: generation 1 pod
        String pod = RecordingJobReconciler.podName(rj, 1);
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() ->
                h.client.pods().inNamespace(NS).withName(pod).get() != null);
        assertThat(h.client.pods().inNamespace(NS).withName(pod).get().getSpec().getContainers().get(0).getEnv())
                .anyMatch(e -> e.getName().equals("PARLEY_RECORDING_JOB_ID") && e.getValue().equals(job));

        // several poll rounds (300 ms each) later: still one RecordingJob for the job, and a changed key (the
        // controller marking a stop) does not rewrite it
        h.registry.request(job, request(job, meeting, true));
        Thread.sleep(3000);
        assertThat(jobs()).filteredOn(j -> job.equals(j.getSpec().jobId)).hasSize(1);
        RecordingJob after = h.client.resources(RecordingJob.class).inNamespace(NS).withName(job).get();
        assertThat(after.getSpec().stopRequested).isNull();
        assertThat(after.getMetadata().getUid()).isEqualTo(rj.getMetadata().getUid());
        assertThat(h.client.pods().inNamespace(NS).withLabel(dev.parley.operator.crd.ParleyApi.LABEL_RECORDING_JOB, job)
                .list().getItems()).hasSize(1);
        assertThat(jobs()).noneMatch(j -> j.getSpec().jobId.startsWith("broken-"));
    }

    @Test
    void jobIdsThatCannotNameAResourceAreSkipped() {
        assertThat(RecordingRequestBridge.jobName("3F2504E0-4F89-11D3-9A0C-0305E82C3301"))
                .isEqualTo("3f2504e0-4f89-11d3-9a0c-0305e82c3301");
        assertThat(RecordingRequestBridge.jobName("a_b")).isNull();
        assertThat(RecordingRequestBridge.jobName("-x")).isNull();
        assertThat(RecordingRequestBridge.jobName("x".repeat(60))).isNull();
    }
}
