package dev.parley.controller.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.controller.testing.TestSfuDouble;
import dev.parley.controller.testing.WsClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Seed 000's API walk-through against one controller, real PostgreSQL, real etcd and an SFU test double. */
class ApiWalkthroughIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(1, "controller-0");

    @Test
    void seedWalkthrough() throws Exception {
        UUID tenant = UUID.randomUUID();
        UUID organizer = UUID.randomUUID();
        String hostToken = ControllerHarness.token(tenant, organizer);
        String createBody = "{\"title\":\"Architecture Review\",\"waiting_room_enabled\":true,\"encryption_mode\":\"transport\"}";

        // create, and its retry with the same key: same meeting, one row, one outbox event
        var created = h.call(0, "POST", "/v1/meetings", hostToken, "create-meeting-7f23", createBody);
        assertThat(created.status()).as(created.raw()).isEqualTo(201);
        assertThat(created.text("status")).isEqualTo("scheduled");
        assertThat(created.body().get("version").asLong()).isEqualTo(1);
        String m = created.text("meeting_id");
        var retry = h.call(0, "POST", "/v1/meetings", hostToken, "create-meeting-7f23",
                "{\"encryption_mode\":\"transport\",\"title\":\"Architecture Review\",\"waiting_room_enabled\":true}");
        assertThat(retry.status()).isEqualTo(201);
        assertThat(retry.text("meeting_id")).isEqualTo(m);
        var conflicting = h.call(0, "POST", "/v1/meetings", hostToken, "create-meeting-7f23",
                createBody.replace("Architecture Review", "Other"));
        assertThat(conflicting.status()).isEqualTo(409);
        assertThat(conflicting.text("code")).isEqualTo("idempotency_key_reused");
        assertThat(conflicting.contentType()).startsWith("application/problem+json");
        assertThat(h.count("SELECT count(*) FROM meetings WHERE meeting_id = '" + m + "'")).isEqualTo(1);
        assertThat(h.count("SELECT count(*) FROM outbox_events WHERE meeting_id = '" + m + "' AND event_type = 'meeting.created'")).isEqualTo(1);

        // the organizer joins as host (admitted), Richard joins into the waiting room
        var hostJoin = h.call(0, "POST", "/v1/meetings/" + m + "/participants", hostToken, "join-host",
                "{\"client_instance_id\":\"" + UUID.randomUUID() + "\",\"display_name\":\"Host\"}");
        assertThat(hostJoin.status()).as(hostJoin.raw()).isEqualTo(201);
        assertThat(hostJoin.text("admission_state")).isEqualTo("admitted");
        assertThat(hostJoin.text("role")).isEqualTo("host");

        UUID richard = UUID.randomUUID();
        String rToken = ControllerHarness.token(tenant, richard);
        String joinBody = "{\"client_instance_id\":\"3b48d820-d385-46ed-bb82-0ea9c649ad71\",\"display_name\":\"Richard\","
                + "\"capabilities\":{\"video_codecs\":[\"VP8\",\"H264\"],\"simulcast\":true,\"e2ee\":true}}";
        var join = h.call(0, "POST", "/v1/meetings/" + m + "/participants", rToken, "join-9c11", joinBody);
        assertThat(join.status()).as(join.raw()).isEqualTo(201);
        assertThat(join.text("admission_state")).isEqualTo("waiting");
        assertThat(join.body().get("participant_version").asLong()).isEqualTo(1);
        assertThat(join.text("media_access")).isEqualTo("not_granted");
        String pid = join.text("participant_id");
        var joinRetry = h.call(0, "POST", "/v1/meetings/" + m + "/participants", rToken, "join-9c11", joinBody);
        assertThat(joinRetry.text("participant_id")).isEqualTo(pid);
        assertThat(h.count("SELECT count(*) FROM meeting_participants WHERE meeting_id = '" + m + "'")).isEqualTo(2);

        // a waiting participant gets no transport
        var early = h.call(0, "POST", "/v1/meetings/" + m + "/participants/" + pid + "/transports", rToken,
                "transport-early", "{\"expected_transport_generation\":0,\"device_key_id\":\"device-key-82\"}");
        assertThat(early.status()).isEqualTo(403);
        assertThat(early.text("code")).isEqualTo("not_admitted");

        // admit
        var admit = h.call(0, "POST", "/v1/meetings/" + m + "/commands", hostToken, "admit-1",
                "{\"type\":\"admit\",\"participant_id\":\"" + pid + "\",\"expected_participant_version\":1}");
        assertThat(admit.status()).as(admit.raw()).isEqualTo(201);
        assertThat(admit.text("state")).isEqualTo("committed");
        assertThat(admit.body().get("participant_version").asLong()).isEqualTo(2);

        // transports: generation 1; the same attempt again recovers generation 1 (no bump)
        String tBody = "{\"expected_transport_generation\":0,\"device_key_id\":\"device-key-82\"}";
        var t1 = h.call(0, "POST", "/v1/meetings/" + m + "/participants/" + pid + "/transports", rToken, "transport-attempt-31", tBody);
        assertThat(t1.status()).as(t1.raw()).isEqualTo(200);
        assertThat(t1.body().get("transport_generation").asLong()).isEqualTo(1);
        assertThat(t1.body().get("controller_epoch").asLong()).isPositive();
        assertThat(t1.text("region")).isEqualTo(h.region);
        assertThat(t1.text("signaling_endpoint")).endsWith("/v1/connect");
        assertThat(t1.body().get("ticket_expires_in_seconds").asLong()).isEqualTo(30);
        assertThat(t1.body().get("ice_servers").get(0).get("username").asText()).endsWith(":" + pid);
        var t1again = h.call(0, "POST", "/v1/meetings/" + m + "/participants/" + pid + "/transports", rToken, "transport-attempt-31", tBody);
        assertThat(t1again.body().get("transport_generation").asLong()).isEqualTo(1);
        var stale = h.call(0, "POST", "/v1/meetings/" + m + "/participants/" + pid + "/transports", rToken, "transport-attempt-32", tBody);
        assertThat(stale.status()).isEqualTo(409);
        assertThat(stale.text("code")).isEqualTo("stale_transport_generation");
        assertThat(stale.body().get("current_transport_generation").asLong()).isEqualTo(1);
        assertThat(h.count("SELECT transport_generation FROM meeting_participants WHERE participant_id = '" + pid + "'")).isEqualTo(1);

        // the SFU holds a grant with audio allowed
        TestSfuDouble sfu = h.sfus.get(0);
        await().atMost(Duration.ofSeconds(3)).until(() -> sfu.held(m, pid) != null && sfu.held(m, pid).grant().publish().audio());

        // signaling: join with the ticket, offer relayed to the SFU, answer back
        try (WsClient ws = new WsClient(t1.text("signaling_endpoint"))) {
            ws.send("{\"type\":\"join\",\"connect_ticket\":\"" + t1.text("connect_ticket") + "\"}");
            JsonNode joined = ws.await("joined", 5000);
            String cursorAtJoin = joined.get("cursor").asText();
            ws.send("{\"type\":\"offer\",\"transport\":\"publish\",\"sdp\":\"v=0\\r\\n\"}");
            JsonNode answer = ws.await("answer", 5000);
            assertThat(answer.get("sdp").asText()).contains("test-double");
            assertThat(sfu.transportsCreated.get()).isEqualTo(1);

            // revoke audio with an expected version: stale version → 409 with the current version
            var staleRevoke = h.call(0, "POST", "/v1/meetings/" + m + "/commands", hostToken, "revoke-audio-18",
                    "{\"type\":\"revoke_audio_publish\",\"participant_id\":\"" + pid + "\",\"expected_participant_version\":1}");
            assertThat(staleRevoke.status()).isEqualTo(409);
            assertThat(staleRevoke.body().get("current_version").asLong()).isEqualTo(2);
            var revoke = h.call(0, "POST", "/v1/meetings/" + m + "/commands", hostToken, "revoke-audio-19",
                    "{\"type\":\"revoke_audio_publish\",\"participant_id\":\"" + pid + "\",\"expected_participant_version\":2}");
            assertThat(revoke.status()).as(revoke.raw()).isEqualTo(201);
            assertThat(revoke.text("state")).isEqualTo("committed");
            assertThat(revoke.body().get("participant_version").asLong()).isEqualTo(3);
            assertThat(revoke.text("media_enforcement")).isEqualTo("pending");
            String cmd = revoke.text("command_id");
            // same key + same body: the original answer
            var replay = h.call(0, "POST", "/v1/meetings/" + m + "/commands", hostToken, "revoke-audio-19",
                    "{\"type\":\"revoke_audio_publish\",\"participant_id\":\"" + pid + "\",\"expected_participant_version\":2}");
            assertThat(replay.status()).isEqualTo(200);
            assertThat(replay.text("command_id")).isEqualTo(cmd);
            assertThat(replay.text("media_enforcement")).isEqualTo("pending");
            var reuse = h.call(0, "POST", "/v1/meetings/" + m + "/commands", hostToken, "revoke-audio-19",
                    "{\"type\":\"revoke_audio_publish\",\"participant_id\":\"" + pid + "\"}");
            assertThat(reuse.status()).isEqualTo(409);

            // applied once the SFU acknowledged version 3, which no longer allows audio
            await().atMost(Duration.ofSeconds(5)).until(() ->
                    "applied".equals(h.call(0, "GET", "/v1/meetings/" + m + "/commands/" + cmd, hostToken, null, null)
                            .text("media_enforcement")));
            assertThat(sfu.held(m, pid).grant().version()).isGreaterThanOrEqualTo(3);
            assertThat(sfu.held(m, pid).grant().publish().audio()).isFalse();

            // the socket saw the permission change and the applied event, in cursor order
            JsonNode ev = ws.await("event", 3000);
            assertThat(ev.get("cursor").asText()).isNotEqualTo(cursorAtJoin);
            // command_committed keeps its own event type; the command's type travels as command_type
            JsonNode committed = ev.get("event");
            long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!"command_committed".equals(committed.path("type").asText()) || !cmd.equals(committed.path("command_id").asText())) {
                assertThat(System.nanoTime()).as("command_committed of the revoke on the socket").isLessThan(until);
                committed = ws.await("event", 5000).get("event");
            }
            assertThat(committed.get("command_type").asText()).isEqualTo("revoke_audio_publish");
            assertThat(committed.get("participant_id").asText()).isEqualTo(pid);

            // snapshot with cursor
            var snap = h.call(0, "GET", "/v1/meetings/" + m + "/snapshot", rToken, null, null);
            assertThat(snap.status()).isEqualTo(200);
            assertThat(snap.text("meeting_status")).isEqualTo("live");
            assertThat(snap.body().get("participant_count").asLong()).isEqualTo(2);
            assertThat(snap.text("control_cursor")).startsWith(snap.body().get("controller_epoch").asText() + ".");
            assertThat(snap.body().get("self").get("admission_state").asText()).isEqualTo("admitted");
            assertThat(snap.body().get("self").get("participant_version").asLong()).isEqualTo(3);
            assertThat(snap.body().get("self").get("audio_publish_allowed").asBoolean()).isFalse();
        }
    }

    @Test
    void ownerServesMeetingStateForOperators() throws Exception {
        Scenario s = new Scenario(h).meeting(true);
        String[] a = s.admittedAttendee(0);
        var t = s.transport(0, a[0], a[1], 0, "state-t1");
        assertThat(t.status()).as(t.raw()).isEqualTo(200);
        String path = "/internal/v1/meetings/" + s.meetingId + "/state";

        var st = h.call(h.base(0), "GET", path, ControllerHarness.INTERNAL_SECRET, null, null, null);
        assertThat(st.status()).as(st.raw()).isEqualTo(200);
        JsonNode b = st.body();
        assertThat(b.get("owned_here").asBoolean()).isTrue();
        assertThat(b.get("owner_epoch").asLong()).isEqualTo(b.get("controller_epoch").asLong()).isPositive();
        assertThat(b.get("status").asText()).isEqualTo("live");
        assertThat(b.get("participants")).hasSize(2);
        JsonNode attendee = null;
        for (JsonNode p : b.get("participants")) {
            if (p.get("participant_id").asText().equals(a[1])) {
                attendee = p;
            }
        }
        assertThat(attendee).isNotNull();
        assertThat(attendee.get("admission_state").asText()).isEqualTo("admitted");
        assertThat(attendee.get("transport_generation").asLong()).isEqualTo(1);
        assertThat(attendee.get("sfu").asText()).isEqualTo(h.sfus.get(0).pod());
        assertThat(b.get("sfus").get(0).asText()).isEqualTo(h.sfus.get(0).pod());
        assertThat(b.get("pending_enforcement").isArray()).isTrue();
        // no principal ids (the roster never shows who is behind a participant)
        assertThat(st.raw()).doesNotContain(s.hostPrincipal.toString());

        assertThat(h.call(h.base(0), "GET", path, "wrong", null, null, null).status()).isEqualTo(401);
        var unknown = h.call(h.base(0), "GET", "/internal/v1/meetings/" + UUID.randomUUID() + "/state",
                ControllerHarness.INTERNAL_SECRET, null, null, null);
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.contentType()).startsWith("application/problem+json");
    }

    @Test
    void requestUnmuteNeverUnmutesAndMuteAllHonoursSelfUnmute() throws Exception {
        Scenario s = new Scenario(h).meeting(false);
        String[] a = s.admittedAttendee(0);
        var mute = s.command(0, "{\"type\":\"mute_all\",\"allow_self_unmute\":false}");
        assertThat(mute.status()).as(mute.raw()).isEqualTo(201);
        assertThat(s.snapshot(0, a[0]).get("self").get("audio_publish_allowed").asBoolean()).isFalse();
        var ask = s.command(0, "{\"type\":\"request_unmute\",\"participant_id\":\"" + a[1] + "\"}");
        assertThat(ask.status()).as(ask.raw()).isEqualTo(201);
        JsonNode self = s.snapshot(0, a[0]).get("self");
        assertThat(self.get("unmute_requested").asBoolean()).isTrue();
        // permission is back, but nothing turned a microphone on: that stays the user's choice
        assertThat(self.get("audio_publish_allowed").asBoolean()).isTrue();
        var soft = s.command(0, "{\"type\":\"mute_all\",\"allow_self_unmute\":true}");
        assertThat(soft.status()).isEqualTo(201);
        assertThat(s.snapshot(0, a[0]).get("self").get("audio_publish_allowed").asBoolean()).isTrue();
    }

    @Test
    void e2eeMeetingsRefuseRecordingAndRemovedPrincipalsCannotRejoin() throws Exception {
        Scenario s = new Scenario(h);
        // e2ee meetings are created through the API (docs/e2ee.md); the mode is stored as asked and never changes
        var r = h.call(0, "POST", "/v1/meetings", s.hostToken, "e2ee-1",
                "{\"title\":\"secret\",\"waiting_room_enabled\":false,\"encryption_mode\":\"e2ee\"}");
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        s.meetingId = r.text("meeting_id");
        assertThat(h.scalar("SELECT encryption_mode FROM meetings WHERE meeting_id = '" + s.meetingId + "'")).isEqualTo("e2ee");
        var read = h.call(0, "GET", "/v1/meetings/" + s.meetingId, s.hostToken, null, null);
        assertThat(read.text("encryption_mode")).isEqualTo("e2ee");
        // no request changes it: the same creation key with another mode is a conflict, not a transport meeting
        var flip = h.call(0, "POST", "/v1/meetings", s.hostToken, "e2ee-1",
                "{\"title\":\"secret\",\"waiting_room_enabled\":false,\"encryption_mode\":\"transport\"}");
        assertThat(flip.status()).as(flip.raw()).isEqualTo(409);
        assertThat(h.scalar("SELECT encryption_mode FROM meetings WHERE meeting_id = '" + s.meetingId + "'")).isEqualTo("e2ee");
        // a mode that is neither: a clear 400 naming the field
        var bad = h.call(0, "POST", "/v1/meetings", s.hostToken, "e2ee-2",
                "{\"title\":\"secret\",\"waiting_room_enabled\":false,\"encryption_mode\":\"none\"}");
        assertThat(bad.status()).as(bad.raw()).isEqualTo(400);
        var hj = s.join(0, s.hostToken, UUID.randomUUID());
        assertThat(hj.status()).isEqualTo(201);
        var rec = s.command(0, "{\"type\":\"start_recording\"}");
        assertThat(rec.status()).isEqualTo(409);
        assertThat(rec.text("code")).isEqualTo("recording_not_allowed_e2ee");
        assertThat(h.count("SELECT count(*) FROM recording_jobs WHERE meeting_id = '" + s.meetingId + "'")).isZero();

        UUID bob = UUID.randomUUID();
        String bobToken = ControllerHarness.token(s.tenant, bob);
        var bj = s.join(0, bobToken, UUID.randomUUID());
        var rm = s.command(0, "{\"type\":\"remove_participant\",\"participant_id\":\"" + bj.text("participant_id") + "\"}");
        assertThat(rm.status()).as(rm.raw()).isEqualTo(201);
        var again = s.join(0, bobToken, UUID.randomUUID());
        assertThat(again.status()).isEqualTo(403);
        assertThat(again.text("code")).isEqualTo("principal_banned");
    }
}
