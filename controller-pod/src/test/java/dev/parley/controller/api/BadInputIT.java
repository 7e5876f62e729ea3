package dev.parley.controller.api;

import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.LogCapture;
import dev.parley.controller.testing.Scenario;
import dev.parley.controller.testing.WsClient;
import dev.parley.platform.ticket.TicketKeys;
import dev.parley.platform.ticket.TicketSigner;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** Bad input: the right 4xx problem+json with a stable code, and nothing written (checked in PostgreSQL). */
class BadInputIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(1, "controller-0");
    static Scenario s;

    @BeforeAll
    static void up() throws Exception {
        s = new Scenario(h).meeting(true);
    }

    private static long rows() throws Exception {
        return h.count("SELECT (SELECT count(*) FROM meetings) + (SELECT count(*) FROM meeting_participants) "
                + "+ (SELECT count(*) FROM outbox_events) + (SELECT count(*) FROM commands) "
                + "+ (SELECT count(*) FROM transport_attempts) + (SELECT count(*) FROM control_events) "
                + "+ (SELECT count(*) FROM recording_jobs) + (SELECT count(*) FROM principal_bans)");
    }

    private static void expect(ControllerHarness.Res r, int status, String code) {
        assertThat(r.status()).as(r.raw()).isEqualTo(status);
        assertThat(r.contentType()).as(r.raw()).startsWith("application/problem+json");
        assertThat(r.text("code")).as(r.raw()).isEqualTo(code);
        assertThat(r.body().get("status").asInt()).isEqualTo(status);
    }

    record Case(String name, String method, String path, String token, String key, String body, String contentType,
                int status, String code) {
    }

    @Test
    void badRequestsAreRefusedAndWriteNothing() throws Exception {
        String m = s.meetingId;
        String tok = s.hostToken;
        String okCreate = "{\"title\":\"t\",\"waiting_room_enabled\":true,\"encryption_mode\":\"transport\"}";
        String forged = ControllerHarness.token(s.tenant, s.hostPrincipal, "another-secret-0123456789abcdef0123456789", Duration.ofHours(1));
        String expired = ControllerHarness.token(s.tenant, s.hostPrincipal, ControllerHarness.JWT_SECRET, Duration.ofSeconds(-120));
        String otherTenant = ControllerHarness.token(UUID.randomUUID(), s.hostPrincipal);
        String json = "application/json";
        Case[] cases = {
                new Case("malformed json", "POST", "/v1/meetings", tok, "k1", "{\"title\":", json, 400, "malformed_json"),
                new Case("trailing garbage", "POST", "/v1/meetings", tok, "k1", okCreate + "xx", json, 400, "malformed_json"),
                new Case("duplicate keys", "POST", "/v1/meetings", tok, "k1", "{\"title\":\"a\",\"title\":\"b\"}", json, 400, "malformed_json"),
                new Case("array body", "POST", "/v1/meetings", tok, "k1", "[1,2]", json, 400, "invalid_body"),
                new Case("empty body", "POST", "/v1/meetings", tok, "k1", "", json, 400, "missing_body"),
                new Case("wrong type", "POST", "/v1/meetings", tok, "k1",
                        "{\"title\":5,\"waiting_room_enabled\":true,\"encryption_mode\":\"transport\"}", json, 400, "invalid_field"),
                new Case("wrong boolean", "POST", "/v1/meetings", tok, "k1",
                        "{\"title\":\"t\",\"waiting_room_enabled\":\"yes\",\"encryption_mode\":\"transport\"}", json, 400, "invalid_field"),
                new Case("bad enum", "POST", "/v1/meetings", tok, "k1",
                        "{\"title\":\"t\",\"waiting_room_enabled\":true,\"encryption_mode\":\"none\"}", json, 400, "invalid_field"),
                new Case("missing field", "POST", "/v1/meetings", tok, "k1", "{\"title\":\"t\"}", json, 400, "missing_field"),
                new Case("missing key", "POST", "/v1/meetings", tok, null, okCreate, json, 400, "missing_idempotency_key"),
                new Case("oversized body", "POST", "/v1/meetings", tok, "k1",
                        "{\"title\":\"" + "x".repeat(40_000) + "\",\"waiting_room_enabled\":true,\"encryption_mode\":\"transport\"}",
                        json, 413, "payload_too_large"),
                new Case("no token", "POST", "/v1/meetings", null, "k1", okCreate, json, 401, "unauthenticated"),
                new Case("garbage token", "POST", "/v1/meetings", "abc.def.ghi", "k1", okCreate, json, 401, "unauthenticated"),
                new Case("forged token", "POST", "/v1/meetings", forged, "k1", okCreate, json, 401, "unauthenticated"),
                new Case("expired token", "POST", "/v1/meetings", expired, "k1", okCreate, json, 401, "unauthenticated"),
                new Case("unknown command", "POST", "/v1/meetings/" + m + "/commands", tok, "k2",
                        "{\"type\":\"unmute_everyone_now\"}", json, 400, "unknown_command"),
                new Case("command wrong type", "POST", "/v1/meetings/" + m + "/commands", tok, "k2",
                        "{\"type\":\"admit\",\"participant_id\":42}", json, 400, "invalid_field"),
                new Case("command bad uuid", "POST", "/v1/meetings/" + m + "/commands", tok, "k2",
                        "{\"type\":\"admit\",\"participant_id\":\"not-a-uuid\"}", json, 400, "invalid_field"),
                new Case("command missing key", "POST", "/v1/meetings/" + m + "/commands", tok, null,
                        "{\"type\":\"lock_meeting\"}", json, 400, "missing_idempotency_key"),
                new Case("negative version", "POST", "/v1/meetings/" + m + "/commands", tok, "k3",
                        "{\"type\":\"admit\",\"participant_id\":\"" + UUID.randomUUID() + "\",\"expected_participant_version\":-1}",
                        json, 400, "invalid_field"),
                new Case("unknown participant", "POST", "/v1/meetings/" + m + "/commands", tok, "k4",
                        "{\"type\":\"admit\",\"participant_id\":\"" + UUID.randomUUID() + "\"}", json, 404, "participant_not_found"),
                new Case("wrong tenant", "POST", "/v1/meetings/" + m + "/commands", otherTenant, "k5",
                        "{\"type\":\"lock_meeting\"}", json, 404, "meeting_not_found"),
                new Case("wrong tenant read", "GET", "/v1/meetings/" + m + "/snapshot", otherTenant, null, null, null, 404, "meeting_not_found"),
                new Case("bad meeting id", "GET", "/v1/meetings/xyz", tok, null, null, null, 400, "invalid_field"),
                new Case("unknown meeting", "POST", "/v1/meetings/" + UUID.randomUUID() + "/participants", tok, "k6",
                        "{\"client_instance_id\":\"" + UUID.randomUUID() + "\",\"display_name\":\"x\"}", json, 404, "meeting_not_found"),
                new Case("transport negative generation", "POST", "/v1/meetings/" + m + "/participants/" + s.hostPid + "/transports",
                        tok, "k7", "{\"expected_transport_generation\":-3,\"device_key_id\":\"d\"}", json, 400, "invalid_field"),
                new Case("transport fractional generation", "POST", "/v1/meetings/" + m + "/participants/" + s.hostPid + "/transports",
                        tok, "k7", "{\"expected_transport_generation\":1.5,\"device_key_id\":\"d\"}", json, 400, "invalid_field"),
                new Case("wrong content type", "POST", "/v1/meetings", tok, "k8", okCreate, "text/plain", 415, "unsupported_media_type"),
                new Case("not a moderator", "POST", "/v1/meetings/" + m + "/commands",
                        ControllerHarness.token(s.tenant, UUID.randomUUID()), "k9", "{\"type\":\"lock_meeting\"}", json, 403, "not_a_moderator"),
                new Case("unknown route", "GET", "/v1/nothing-here", tok, null, null, null, 404, "not_found"),
                new Case("dev token bad body", "POST", "/v1/dev/tokens", null, null, "{\"tenant\":1}", json, 400, "invalid_field"),
        };
        for (Case c : cases) {
            long before = rows();
            var r = h.call(h.base(0), c.method(), c.path(), c.token(), c.key(), c.body(), c.contentType());
            try {
                expect(r, c.status(), c.code());
            } catch (AssertionError e) {
                throw new AssertionError("case '" + c.name() + "': " + e.getMessage(), e);
            }
            assertThat(rows()).as("nothing written for case '" + c.name() + "'").isEqualTo(before);
        }
    }

    @Test
    void localModeDevTokensWork() throws Exception {
        UUID tenant = UUID.randomUUID();
        var minted = h.call(h.base(0), "POST", "/v1/dev/tokens", null, null,
                "{\"tenant\":\"" + tenant + "\",\"principal\":\"" + UUID.randomUUID() + "\",\"name\":\"Dev\"}",
                "application/json");
        assertThat(minted.status()).as(minted.raw()).isEqualTo(200);
        var created = h.call(0, "POST", "/v1/meetings", minted.text("token"), "dev-1",
                "{\"title\":\"t\",\"waiting_room_enabled\":false,\"encryption_mode\":\"transport\"}");
        assertThat(created.status()).isEqualTo(201);
        assertThat(h.scalar("SELECT tenant_id FROM meetings WHERE meeting_id = '" + created.text("meeting_id") + "'"))
                .isEqualTo(tenant.toString());
    }

    @Test
    void badTicketsAreRefusedOnTheSocket() throws Exception {
        String[] a = s.admittedAttendee(0);
        var t = s.transport(0, a[0], a[1], 0, "bad-ticket-t");
        assertThat(t.status()).as(t.raw()).isEqualTo(200);
        String endpoint = t.text("signaling_endpoint");
        // forged: signed by another key
        String forged = new TicketSigner(TicketKeys.generate()).issue(s.meetingId, a[1], 1, "sfu-0", "d", Duration.ofSeconds(30)).token();
        for (String[] c : new String[][]{{forged, "ticket_bad_signature"}, {"garbage", "ticket_malformed"}}) {
            try (WsClient ws = new WsClient(endpoint)) {
                ws.send("{\"type\":\"join\",\"connect_ticket\":\"" + c[0] + "\"}");
                assertThat(ws.await("error", 5000).get("code").asText()).isEqualTo(c[1]);
            }
        }
        // replayed: the genuine ticket works once
        try (WsClient ws = new WsClient(endpoint)) {
            ws.send("{\"type\":\"join\",\"connect_ticket\":\"" + t.text("connect_ticket") + "\"}");
            ws.await("joined", 5000);
        }
        try (WsClient ws = new WsClient(endpoint)) {
            ws.send("{\"type\":\"join\",\"connect_ticket\":\"" + t.text("connect_ticket") + "\"}");
            assertThat(ws.await("error", 5000).get("code").asText()).isEqualTo("ticket_replayed");
        }
        // malformed messages and unknown types are answered, not fatal
        try (WsClient ws = new WsClient(endpoint)) {
            ws.send("{nope");
            assertThat(ws.await("error", 5000).get("code").asText()).isEqualTo("malformed_json");
            ws.send("{\"type\":\"offer\",\"transport\":\"publish\",\"sdp\":\"v=0\"}");
            assertThat(ws.await("error", 5000).get("code").asText()).isEqualTo("not_joined");
            ws.send("{\"type\":\"dance\"}");
            assertThat(ws.await("error", 5000).get("code").asText()).isEqualTo("unknown_message");
            ws.send("{\"type\":\"ping\"}");
            ws.await("pong", 5000);
        }
    }

    /**
     * PostgreSQL text (and jsonb) cannot hold U+0000, and an unpaired UTF-16 surrogate is no character at all: such
     * a string in any field of any body is a 400 {@code invalid_field} naming the field, refused before the
     * database sees it (it used to fail there: 503 and an ERROR stack trace), and nothing is written.
     */
    @Test
    void nulAndUnpairedSurrogatesAreInvalidFieldsAndReachNoDatabase() throws Exception {
        String m = s.meetingId;
        String[] a = s.admittedAttendee(0);
        String nul = "\\u0000";
        String create = "{\"title\":\"%s\",\"waiting_room_enabled\":true,\"encryption_mode\":\"transport\"}";
        String join = "{\"client_instance_id\":\"" + UUID.randomUUID() + "\",\"display_name\":\"%s\"}";
        String caps = "{\"client_instance_id\":\"" + UUID.randomUUID() + "\",\"display_name\":\"Ok\","
                + "\"capabilities\":{\"video_codecs\":[\"VP8\",\"%s\"],\"simulcast\":true}}";
        String capsKey = "{\"client_instance_id\":\"" + UUID.randomUUID() + "\",\"display_name\":\"Ok\","
                + "\"capabilities\":{\"%s\":true}}";
        String transport = "{\"expected_transport_generation\":0,\"device_key_id\":\"%s\"}";
        String joinPath = "/v1/meetings/" + m + "/participants";
        String transportPath = joinPath + "/" + a[1] + "/transports";
        String joiner = ControllerHarness.token(s.tenant, UUID.randomUUID());
        record Bad(String name, String path, String token, String body, String field) {
        }
        Bad[] cases = {
                new Bad("title with NUL", "/v1/meetings", s.hostToken, create.formatted("Arch" + nul + "Review"), "title"),
                new Bad("title that is NUL", "/v1/meetings", s.hostToken, create.formatted(nul), "title"),
                new Bad("display name with NUL", joinPath, joiner, join.formatted("Ri" + nul + "chard"), "display_name"),
                new Bad("capability with NUL", joinPath, joiner, caps.formatted("H264" + nul), "capabilities.video_codecs[1]"),
                new Bad("capability name with NUL", joinPath, joiner, capsKey.formatted("e2e" + nul), "capabilities"),
                new Bad("device key id with NUL", transportPath, a[0], transport.formatted("device" + nul + "key"), "device_key_id"),
                new Bad("title with a lone high surrogate", "/v1/meetings", s.hostToken, create.formatted("x\\ud83d"), "title"),
                new Bad("display name with a lone low surrogate", joinPath, joiner, join.formatted("\\ude00x"), "display_name"),
                new Bad("device key id with reversed surrogates", transportPath, a[0], transport.formatted("\\ude00\\ud83d"), "device_key_id"),
        };
        try (LogCapture logs = new LogCapture()) {
            for (Bad c : cases) {
                long before = rows();
                var r = h.call(0, "POST", c.path(), c.token(), "nul-" + UUID.randomUUID(), c.body());
                try {
                    expect(r, 400, "invalid_field");
                    assertThat(r.text("field")).as(r.raw()).isEqualTo(c.field());
                } catch (AssertionError e) {
                    throw new AssertionError("case '" + c.name() + "': " + e.getMessage(), e);
                }
                assertThat(rows()).as("nothing written for case '" + c.name() + "'").isEqualTo(before);
            }
            // a paired surrogate (an emoji) is an ordinary character
            var ok = h.call(0, "POST", "/v1/meetings", s.hostToken, "emoji-" + UUID.randomUUID(), create.formatted("Review \\ud83d\\ude00"));
            assertThat(ok.status()).as(ok.raw()).isEqualTo(201);
            assertThat(h.scalar("SELECT title FROM meetings WHERE meeting_id = '" + ok.text("meeting_id") + "'"))
                    .isEqualTo("Review \ud83d\ude00");
            assertThat(logs.errors()).as("ERROR lines").isEmpty();
        }
    }

    /** The same check on the signaling socket: a message carrying U+0000 is refused, naming the field. */
    @Test
    void nulOnTheSocketIsAnInvalidField() throws Exception {
        String[] a = s.admittedAttendee(0);
        var t = s.transport(0, a[0], a[1], 0, "nul-socket-t");
        assertThat(t.status()).as(t.raw()).isEqualTo(200);
        try (LogCapture logs = new LogCapture(); WsClient ws = new WsClient(t.text("signaling_endpoint"))) {
            long before = rows();
            ws.send("{\"type\":\"join\",\"connect_ticket\":\"" + t.text("connect_ticket") + "\\u0000\"}");
            var e = ws.await("error", 5000);
            assertThat(e.path("code").asText()).as(e.toString()).isEqualTo("invalid_field");
            assertThat(e.path("field").asText()).as(e.toString()).isEqualTo("connect_ticket");
            // the ticket was not consumed by the refused message: it still joins
            ws.send("{\"type\":\"join\",\"connect_ticket\":\"" + t.text("connect_ticket") + "\"}");
            ws.await("joined", 5000);
            ws.send("{\"type\":\"subscribe\",\"tracks\":[{\"track_id\":\"cam\\u0000\"}]}");
            e = ws.await("error", 5000);
            assertThat(e.path("code").asText()).as(e.toString()).isEqualTo("invalid_field");
            assertThat(e.path("field").asText()).as(e.toString()).isEqualTo("tracks[0].track_id");
            ws.send("{\"type\":\"offer\",\"transport\":\"publish\",\"sdp\":\"v=0\\ud800\"}");
            e = ws.await("error", 5000);
            assertThat(e.path("code").asText()).as(e.toString()).isEqualTo("invalid_field");
            assertThat(e.path("field").asText()).as(e.toString()).isEqualTo("sdp");
            ws.send("{\"type\":\"ping\"}");
            ws.await("pong", 5000);
            assertThat(rows()).as("nothing written").isEqualTo(before);
            assertThat(logs.errors()).as("ERROR lines").isEmpty();
        }
    }
}
