package dev.parley.controller.recording;

import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.testsupport.s3.S3Proxy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code GET /v1/recordings/{job}} on real PostgreSQL, etcd and s3proxy: a host gets a presigned link that
 * serves the composite's exact bytes and stops working after its lifetime; an attendee of the same meeting is
 * refused (403), another tenant doesn't see the recording (404), an unfinished recording has no link.
 */
class RecordingDownloadIT {
    static final long TTL_SECONDS = 3;
    static ControllerHarness h;
    static S3Proxy s3;
    static S3Client objects;
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @BeforeAll
    static void up() throws Exception {
        s3 = S3Proxy.start();
        objects = RecordingStorageFixture.client(s3);
        h = new ControllerHarness(1);
        RecordingStorageFixture.startController(h, "controller-0", s3,
                Map.of("parley.recording.download.ttl.seconds", String.valueOf(TTL_SECONDS)));
    }

    @AfterAll
    static void down() {
        RecordingStorageFixture.closeAll(h, objects, s3);
    }

    static HttpResponse<byte[]> fetch(String url) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }

    @Test
    void hostsDownloadTheCompositeThroughATimeLimitedLink() throws Exception {
        Scenario s = new Scenario(h).meeting(false);
        String[] attendee = s.admittedAttendee(0);
        String job = RecordingStorageFixture.startRecording(s, 0);
        String key = job + "/1/final/composite.mp4";
        byte[] composite = new byte[300_000];
        ThreadLocalRandom.current().nextBytes(composite);
        RecordingStorageFixture.put(objects, s3.bucket(), key, composite);

        // still recording: state, no link
        RecordingStorageFixture.report(h, 0, job, "{\"generation\":1,\"state\":\"recording\"}");
        var recording = h.call(0, "GET", "/v1/recordings/" + job, s.hostToken, null, null);
        assertThat(recording.status()).as(recording.raw()).isEqualTo(200);
        assertThat(recording.text("state")).isEqualTo("recording");
        assertThat(recording.body().get("download_url").isNull()).isTrue();

        RecordingStorageFixture.report(h, 0, job, "{\"generation\":1,\"state\":\"ready\",\"missing_ranges\":[],"
                + "\"result\":{\"composite_key\":\"" + key + "\"}}");
        Instant asked = Instant.now();
        var ready = h.call(0, "GET", "/v1/recordings/" + job, s.hostToken, null, null);
        assertThat(ready.status()).as(ready.raw()).isEqualTo(200);
        assertThat(ready.text("state")).isEqualTo("ready");
        String url = ready.text("download_url");
        assertThat(url).startsWith(s3.endpoint()).contains(key).contains("X-Amz-Signature=")
                .contains("X-Amz-Expires=" + TTL_SECONDS);
        Instant expires = Instant.parse(ready.text("download_expires_at"));
        assertThat(Duration.between(asked, expires).toMillis()).isBetween(TTL_SECONDS * 1000 - 2000, TTL_SECONDS * 1000 + 1000);

        // the link alone (no credentials) serves the exact bytes
        HttpResponse<byte[]> got = fetch(url);
        assertThat(got.statusCode()).isEqualTo(200);
        assertThat(got.body()).isEqualTo(composite);
        // and only that object: the signature covers the key
        assertThat(fetch(url.replace(key, job + "/1/final/other.mp4")).statusCode()).isEqualTo(403);

        // an attendee of the same meeting: 403 problem+json; another tenant: 404 (not revealed)
        var attendeeGet = h.call(0, "GET", "/v1/recordings/" + job, attendee[0], null, null);
        assertThat(attendeeGet.status()).as(attendeeGet.raw()).isEqualTo(403);
        assertThat(attendeeGet.contentType()).contains("application/problem+json");
        assertThat(attendeeGet.text("code")).isEqualTo("not_a_host");
        assertThat(attendeeGet.raw()).doesNotContain("X-Amz-Signature");
        String stranger = ControllerHarness.token(UUID.randomUUID(), UUID.randomUUID());
        var strangerGet = h.call(0, "GET", "/v1/recordings/" + job, stranger, null, null);
        assertThat(strangerGet.status()).isEqualTo(404);
        assertThat(strangerGet.text("code")).isEqualTo("recording_not_found");
        // the meeting's recording list (the in-meeting indicator) stays visible to attendees, without links
        var list = h.call(0, "GET", "/v1/meetings/" + s.meetingId + "/recordings", attendee[0], null, null);
        assertThat(list.status()).isEqualTo(200);
        assertThat(list.raw()).contains(job).doesNotContain("X-Amz-Signature");

        // after its lifetime the link fails
        long wait = Duration.between(Instant.now(), expires).toMillis() + 1500;
        if (wait > 0) {
            Thread.sleep(wait);
        }
        HttpResponse<byte[]> late = fetch(url);
        assertThat(late.statusCode()).isEqualTo(403);
        assertThat(new String(late.body(), java.nio.charset.StandardCharsets.UTF_8)).contains("AccessDenied");
        // a fresh GET gives a fresh link
        var again = h.call(0, "GET", "/v1/recordings/" + job, s.hostToken, null, null);
        assertThat(fetch(again.text("download_url")).body()).isEqualTo(composite);
    }

    /**
     * The meeting's recording list is for everyone of the tenant (the in-meeting indicator), but the object key in
     * the bucket is the hosts' alone (as the download itself): an attendee, a tenant member who never joined and a
     * demoted cohost see states without any {@code download_location}; the organizer, a cohost and the principal
     * who started the recording see the key.
     */
    @Test
    void theRecordingListShowsObjectKeysToHostsOnly() throws Exception {
        Scenario s = new Scenario(h).meeting(false);
        String[] attendee = s.admittedAttendee(0);
        String[] cohost = s.admittedAttendee(0);
        String[] demoted = s.admittedAttendee(0);
        String tenantMember = ControllerHarness.token(s.tenant, UUID.randomUUID());
        for (String[] who : new String[][]{cohost, demoted}) {
            var r = s.command(0, "{\"type\":\"set_role\",\"participant_id\":\"" + who[1] + "\",\"role\":\"cohost\"}");
            assertThat(r.status()).as(r.raw()).isEqualTo(201);
        }
        // the demoted cohost starts a recording, then loses the role: it stays a host of that recording only
        String byDemoted = h.call(0, "POST", "/v1/meetings/" + s.meetingId + "/commands", demoted[0], "rec-" + UUID.randomUUID(),
                "{\"type\":\"start_recording\"}").text("recording_job_id");
        assertThat(byDemoted).isNotEmpty();
        String key = byDemoted + "/1/final/composite.mp4";
        RecordingStorageFixture.report(h, 0, byDemoted, "{\"generation\":1,\"state\":\"ready\",\"missing_ranges\":[],"
                + "\"result\":{\"composite_key\":\"" + key + "\"}}");
        var demote = s.command(0, "{\"type\":\"set_role\",\"participant_id\":\"" + demoted[1] + "\",\"role\":\"attendee\"}");
        assertThat(demote.status()).as(demote.raw()).isEqualTo(201);
        String byHost = RecordingStorageFixture.startRecording(s, 0);
        String hostKey = byHost + "/1/final/composite.mp4";
        RecordingStorageFixture.report(h, 0, byHost, "{\"generation\":1,\"state\":\"ready\",\"missing_ranges\":[],"
                + "\"result\":{\"composite_key\":\"" + hostKey + "\"}}");
        String path = "/v1/meetings/" + s.meetingId + "/recordings";

        for (String[] who : new String[][]{{"attendee", attendee[0]}, {"tenant member", tenantMember}}) {
            var list = h.call(0, "GET", path, who[1], null, null);
            assertThat(list.status()).as(who[0] + ": " + list.raw()).isEqualTo(200);
            assertThat(list.body().get("recordings")).as(who[0]).hasSize(2);
            for (var rec : list.body().get("recordings")) {
                assertThat(rec.has("download_location")).as(who[0] + ": " + rec).isFalse();
                assertThat(rec.path("state").asText()).isEqualTo("ready");
            }
            assertThat(list.raw()).as(who[0]).doesNotContain("composite.mp4");
        }
        for (String[] who : new String[][]{{"organizer", s.hostToken}, {"cohost", cohost[0]}}) {
            var list = h.call(0, "GET", path, who[1], null, null);
            assertThat(list.status()).as(who[0] + ": " + list.raw()).isEqualTo(200);
            assertThat(list.body().get("recordings")).as(who[0]).hasSize(2);
            assertThat(list.body().get("recordings").findValuesAsText("download_location")).as(who[0])
                    .containsExactlyInAnyOrder(key, hostKey);
        }
        // the demoted cohost started the first recording: its key, not the other one's
        var own = h.call(0, "GET", path, demoted[0], null, null);
        assertThat(own.status()).as(own.raw()).isEqualTo(200);
        for (var rec : own.body().get("recordings")) {
            boolean mine = rec.path("recording_job_id").asText().equals(byDemoted);
            assertThat(rec.has("download_location")).as(rec.toString()).isEqualTo(mine);
        }
        assertThat(own.raw()).doesNotContain(hostKey);
    }
}
