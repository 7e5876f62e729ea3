package dev.parley.controller.testing;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** Small building blocks used by several tests: a meeting with a host, a participant, a transport. */
public final class Scenario {
    private final ControllerHarness h;
    public final UUID tenant = UUID.randomUUID();
    public final UUID hostPrincipal = UUID.randomUUID();
    public final String hostToken;
    public String meetingId;
    public String hostPid;

    public Scenario(ControllerHarness h) {
        this.h = h;
        this.hostToken = ControllerHarness.token(tenant, hostPrincipal);
    }

    public Scenario meeting(boolean waitingRoom) {
        return meeting(waitingRoom, 0);
    }

    public Scenario meeting(boolean waitingRoom, int controller) {
        return meeting(waitingRoom, controller, "");
    }

    /** A meeting created with {@code extraFields} (e.g. {@code ,"audio_top_n":2}) added to the body. */
    public Scenario meeting(boolean waitingRoom, int controller, String extraFields) {
        var r = h.call(controller, "POST", "/v1/meetings", hostToken, "create-" + UUID.randomUUID(),
                "{\"title\":\"Architecture Review\",\"waiting_room_enabled\":" + waitingRoom + ",\"encryption_mode\":\"transport\"" + extraFields + "}");
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        meetingId = r.text("meeting_id");
        var j = join(controller, hostToken, UUID.randomUUID());
        assertThat(j.status()).as(j.raw()).isEqualTo(201);
        hostPid = j.text("participant_id");
        return this;
    }

    public ControllerHarness.Res join(int controller, String token, UUID device) {
        return h.call(controller, "POST", "/v1/meetings/" + meetingId + "/participants", token, "join-" + UUID.randomUUID(),
                "{\"client_instance_id\":\"" + device + "\",\"display_name\":\"P\",\"capabilities\":{\"simulcast\":true}}");
    }

    /** A new attendee principal that is joined and admitted; returns [token, participantId]. */
    public String[] admittedAttendee(int controller) {
        String token = ControllerHarness.token(tenant, UUID.randomUUID());
        var j = join(controller, token, UUID.randomUUID());
        assertThat(j.status()).as(j.raw()).isEqualTo(201);
        String pid = j.text("participant_id");
        if ("waiting".equals(j.text("admission_state"))) {
            var a = command(controller, "{\"type\":\"admit\",\"participant_id\":\"" + pid + "\"}");
            assertThat(a.status()).as(a.raw()).isEqualTo(201);
        }
        return new String[]{token, pid};
    }

    public ControllerHarness.Res command(int controller, String body) {
        return h.call(controller, "POST", "/v1/meetings/" + meetingId + "/commands", hostToken, "cmd-" + UUID.randomUUID(), body);
    }

    public ControllerHarness.Res transport(int controller, String token, String pid, long expected, String key) {
        return h.call(controller, "POST", "/v1/meetings/" + meetingId + "/participants/" + pid + "/transports", token, key,
                "{\"expected_transport_generation\":" + expected + ",\"device_key_id\":\"device-key-82\"}");
    }

    /** A transport request naming the participant's MediaRegion ({@code media_region}). */
    public ControllerHarness.Res transportIn(int controller, String token, String pid, long expected, String key, String region) {
        return h.call(controller, "POST", "/v1/meetings/" + meetingId + "/participants/" + pid + "/transports", token, key,
                "{\"expected_transport_generation\":" + expected + ",\"device_key_id\":\"device-key-82\",\"media_region\":\""
                        + region + "\"}");
    }

    public JsonNode snapshot(int controller, String token) {
        var r = h.call(controller, "GET", "/v1/meetings/" + meetingId + "/snapshot", token, null, null);
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        return r.body();
    }

    /**
     * Takes a transport for {@code who} ({token, participant id}) on controller 0 with idempotency key {@code key},
     * opens its signaling socket and joins with the connect ticket; returns the joined socket.
     */
    public WsClient joinedSocket(String[] who, String key) throws Exception {
        var t = transport(0, who[0], who[1], 0, key);
        assertThat(t.status()).as(t.raw()).isEqualTo(200);
        WsClient ws = new WsClient(t.text("signaling_endpoint"));
        ws.send("{\"type\":\"join\",\"connect_ticket\":\"" + t.text("connect_ticket") + "\"}");
        ws.await("joined", 20_000);
        return ws;
    }
}
