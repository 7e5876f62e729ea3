package dev.parley.controller.recording;

import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.controller.testing.TestSfuDouble;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The controller's half of recording through the SFU, on real PostgreSQL and etcd with the SFU's internal API
 * (the controller tests' SFU double; the recorder's SfuRecordingIT drives the real SFU): a recorder gets a
 * subscribe-only transport as the hidden participant {@code recorder:{job}:{gen}} with the meeting's epoch, the
 * grant is renewed while the job records and revoked when a stop is requested; state reports move the job
 * (lower generations ignored, terminal states kept) and say whether a stop was requested.
 */
class RecorderSubscriptionsIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(1, "controller-0");
    static final String OFFER = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n";

    private static ControllerHarness.Res internal(String path, String body) {
        return h.call(0, "POST", path, ControllerHarness.INTERNAL_SECRET, null, body);
    }

    @Test
    void recorderSubscribesWithASubscribeOnlyGrantThatEndsWithTheRecording() throws Exception {
        TestSfuDouble sfu = h.sfus.get(0);
        Scenario s = new Scenario(h).meeting(false);
        String[] a = s.admittedAttendee(0);
        assertThat(s.transport(0, a[0], a[1], 0, "a1").status()).isEqualTo(200);
        var rec = s.command(0, "{\"type\":\"start_recording\"}");
        assertThat(rec.status()).as(rec.raw()).isEqualTo(201);
        String job = rec.text("recording_job_id");
        String path = "/internal/v1/recordings/" + job;
        String pid = "recorder:" + job + ":1";

        // internal secret required; bad bodies are 400 problem+json
        var anon = h.call(0, "POST", path + "/subscribe", null, null, "{}");
        assertThat(anon.status()).isEqualTo(401);
        var bad = internal(path + "/subscribe", "{\"generation\":1}");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.contentType()).contains("application/problem+json");

        var sub = internal(path + "/subscribe", "{\"generation\":1,\"transport_generation\":1,\"sdp_offer\":"
                + ControllerHarness.JSON.writeValueAsString(OFFER) + "}");
        assertThat(sub.status()).as(sub.raw()).isEqualTo(200);
        assertThat(sub.text("sfu_pod")).isEqualTo(sfu.pod());
        assertThat(sub.text("participant_id")).isEqualTo(pid);
        assertThat(sub.body().has("sdp_answer")).isTrue();
        long epoch = Long.parseLong(h.scalar("SELECT controller_epoch FROM meetings WHERE meeting_id = '" + s.meetingId + "'"));
        TestSfuDouble.Held g = sfu.held(s.meetingId, pid);
        assertThat(g).isNotNull();
        assertThat(g.grant().subscribe()).isTrue();
        assertThat(g.grant().publish().audio() || g.grant().publish().video() || g.grant().publish().screen()).isFalse();
        assertThat(g.grant().controllerEpoch()).isEqualTo(epoch);
        // hidden: not a participant of the meeting
        assertThat(h.count("SELECT count(*) FROM meeting_participants WHERE meeting_id = '" + s.meetingId + "'"))
                .isEqualTo(2);

        // renewed beyond its 3 s ttl while the job records
        long firstVersion = g.grant().version();
        Thread.sleep(4000);
        await().atMost(Duration.ofSeconds(10)).until(() -> sfu.held(s.meetingId, pid).valid()
                && sfu.held(s.meetingId, pid).grant().version() > firstVersion + 2);
        assertThat(sfu.held(s.meetingId, pid).grant().subscribe()).isTrue();

        var rep = internal(path + "/state", "{\"generation\":1,\"state\":\"recording\",\"missing_ranges\":[]}");
        assertThat(rep.status()).as(rep.raw()).isEqualTo(200);
        assertThat(rep.body().get("applied").asBoolean()).isTrue();
        assertThat(rep.body().get("stop_requested").asBoolean()).isFalse();
        assertThat(rep.body().get("resubscribe").asBoolean()).isFalse();
        // the recorder's SFU drains: the next report tells it to move; the re-subscription (transport generation 2)
        // lands on another SFU
        h.addSfu("sfu-9");
        sfu.setDraining();
        await().atMost(Duration.ofSeconds(20)).until(() -> internal(path + "/state",
                "{\"generation\":1,\"state\":\"recording\"}").body().get("resubscribe").asBoolean());
        var moved = internal(path + "/subscribe", "{\"generation\":1,\"transport_generation\":2,\"sdp_offer\":"
                + ControllerHarness.JSON.writeValueAsString(OFFER) + "}");
        assertThat(moved.status()).as(moved.raw()).isEqualTo(200);
        assertThat(moved.text("sfu_pod")).isEqualTo("sfu-9");
        assertThat(internal(path + "/state", "{\"generation\":1,\"state\":\"recording\"}").body().get("resubscribe")
                .asBoolean()).isFalse();
        assertThat(h.scalar("SELECT state FROM recording_jobs WHERE job_id = '" + job + "'")).isEqualTo("recording");
        var old = internal(path + "/state", "{\"generation\":0,\"state\":\"failed\"}");
        assertThat(old.body().get("applied").asBoolean()).isFalse();

        // stop: the recorder's grant is revoked and it leaves the SFU; it can't subscribe again
        assertThat(s.command(0, "{\"type\":\"stop_recording\"}").status()).isEqualTo(201);
        TestSfuDouble sfu9 = h.sfus.get(1);
        await().atMost(Duration.ofSeconds(15)).until(() -> sfu9.removed.contains(s.meetingId + "/" + pid));
        var again = internal(path + "/subscribe", "{\"generation\":1,\"transport_generation\":2,\"sdp_offer\":"
                + ControllerHarness.JSON.writeValueAsString(OFFER) + "}");
        assertThat(again.status()).isEqualTo(409);
        assertThat(again.text("code")).isEqualTo("recording_stopped");
        var stopping = internal(path + "/state", "{\"generation\":1,\"state\":\"finalizing\"}");
        assertThat(stopping.body().get("stop_requested").asBoolean()).isTrue();

        var done = internal(path + "/state", "{\"generation\":1,\"state\":\"partial\",\"missing_ranges\":[{\"track_id\":\"cam\","
                + "\"from_ms\":1000,\"to_ms\":2000}],\"result\":{\"composite_key\":\"" + job + "/1/final/composite.mp4\"}}");
        assertThat(done.body().get("applied").asBoolean()).isTrue();
        assertThat(h.scalar("SELECT object_location FROM recording_jobs WHERE job_id = '" + job + "'"))
                .isEqualTo(job + "/1/final/composite.mp4");
        assertThat(h.count("SELECT count(*) FROM outbox_events WHERE event_type = 'recording.partial' "
                + "AND idempotency_key = '" + job + "'")).isEqualTo(1);
        // a terminal state is never left
        var late = internal(path + "/state", "{\"generation\":1,\"state\":\"recording\"}");
        assertThat(late.body().get("applied").asBoolean()).isFalse();
        assertThat(late.text("state")).isEqualTo("partial");
        var rest = h.call(0, "GET", "/v1/recordings/" + job, s.hostToken, null, null);
        assertThat(rest.text("state")).isEqualTo("partial");
        assertThat(rest.body().get("missing_ranges")).hasSize(1);
    }
}
