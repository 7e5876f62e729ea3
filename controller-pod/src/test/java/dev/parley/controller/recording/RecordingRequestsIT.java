package dev.parley.controller.recording;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.platform.etcd.EtcdKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The controller's half of the recorder bridge on real PostgreSQL and etcd: start_recording through the public
 * API makes the job's request key appear (what the operator turns into a RecordingJob), stop_recording marks it,
 * a final state report removes it, and a key deleted behind the controller's back is written again from the row.
 */
class RecordingRequestsIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(1, "controller-0");

    private static JsonNode request(String job) throws Exception {
        var kvs = h.etcdClient.getKVClient().get(EtcdKeys.bytes(EtcdKeys.recordingRequest(job)))
                .get(5, TimeUnit.SECONDS).getKvs();
        return kvs.isEmpty() ? null
                : ControllerHarness.JSON.readTree(kvs.get(0).getValue().toString(StandardCharsets.UTF_8));
    }

    @Test
    void requestKeyFollowsTheJobFromStartToStopToFinal() throws Exception {
        Scenario s = new Scenario(h).meeting(false);
        var rec = s.command(0, "{\"type\":\"start_recording\"}");
        assertThat(rec.status()).as(rec.raw()).isEqualTo(201);
        String job = rec.text("recording_job_id");

        await().atMost(Duration.ofSeconds(20)).until(() -> request(job) != null);
        JsonNode r = request(job);
        assertThat(r.get("job_id").asText()).isEqualTo(job);
        assertThat(r.get("meeting_id").asText()).isEqualTo(s.meetingId.toString());
        assertThat(r.get("tenant_id").asText())
                .isEqualTo(h.scalar("SELECT tenant_id FROM meetings WHERE meeting_id = '" + s.meetingId + "'"));
        assertThat(r.get("region").asText())
                .isEqualTo(h.scalar("SELECT region FROM meetings WHERE meeting_id = '" + s.meetingId + "'"));
        assertThat(Instant.parse(r.get("requested_at").asText())).isBefore(Instant.now().plusSeconds(1));
        assertThat(r.get("stop_requested").asBoolean()).isFalse();
        // no lease: the request outlives any controller pod
        var kv = h.etcdClient.getKVClient().get(EtcdKeys.bytes(EtcdKeys.recordingRequest(job)))
                .get(5, TimeUnit.SECONDS).getKvs().get(0);
        assertThat(kv.getLease()).isZero();

        // idempotent: an unchanged job is not rewritten
        long rev = kv.getModRevision();
        Thread.sleep(2 * RecordingRequests.PERIOD_MS + 500);
        assertThat(h.etcdClient.getKVClient().get(EtcdKeys.bytes(EtcdKeys.recordingRequest(job)))
                .get(5, TimeUnit.SECONDS).getKvs().get(0).getModRevision()).isEqualTo(rev);

        // lost key (e.g. etcd restored from an old snapshot): rebuilt from PostgreSQL
        h.etcdClient.getKVClient().delete(EtcdKeys.bytes(EtcdKeys.recordingRequest(job))).get(5, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(20)).until(() -> request(job) != null);

        assertThat(s.command(0, "{\"type\":\"stop_recording\"}").status()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(20)).until(() -> request(job).get("stop_requested").asBoolean());
        assertThat(request(job).get("job_id").asText()).isEqualTo(job);

        // finalizing keeps the key (the recorder pod still runs); a final state removes it
        var fin = h.call(0, "POST", "/internal/v1/recordings/" + job + "/state", ControllerHarness.INTERNAL_SECRET, null,
                "{\"generation\":1,\"state\":\"finalizing\"}");
        assertThat(fin.status()).as(fin.raw()).isEqualTo(200);
        Thread.sleep(2 * RecordingRequests.PERIOD_MS + 500);
        assertThat(request(job)).isNotNull();
        var done = h.call(0, "POST", "/internal/v1/recordings/" + job + "/state", ControllerHarness.INTERNAL_SECRET, null,
                "{\"generation\":1,\"state\":\"ready\",\"missing_ranges\":[]}");
        assertThat(done.status()).as(done.raw()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(20)).until(() -> request(job) == null);
    }

    @Test
    void endingTheMeetingMarksTheRequestStopped() throws Exception {
        Scenario s = new Scenario(h).meeting(false);
        var rec = s.command(0, "{\"type\":\"start_recording\"}");
        assertThat(rec.status()).as(rec.raw()).isEqualTo(201);
        String job = rec.text("recording_job_id");
        await().atMost(Duration.ofSeconds(20)).until(() -> request(job) != null);
        assertThat(request(job).get("stop_requested").asBoolean()).isFalse();

        var end = s.command(0, "{\"type\":\"end_meeting\"}");
        assertThat(end.status()).as(end.raw()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(20)).until(() -> request(job).get("stop_requested").asBoolean());
    }
}
