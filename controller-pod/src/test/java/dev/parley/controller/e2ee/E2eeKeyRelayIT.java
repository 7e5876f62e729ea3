package dev.parley.controller.e2ee;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.JsonLogCapture;
import dev.parley.controller.testing.Scenario;
import dev.parley.controller.testing.WsClient;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Base64;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The controller relays e2ee identity keys and key envelopes between admitted members of an e2ee meeting and
 * refuses, counts and does not relay a bad batch: malformed, replayed, addressed to a non-member, sent by a
 * participant that is no member any more, naming an old controller epoch, or in a transport meeting. Real
 * controller, PostgreSQL and etcd; the sockets are plain WebSocket clients (no browser needed for the checks).
 */
class E2eeKeyRelayIT {
    @RegisterExtension
    static final ControllerHarness h = ControllerHarness.perClass(1, "controller-0");

    private static final String IV = b64(filled(12, 0x11));
    private static final String CT = b64(filled(44, 0x5a));
    /** A P-256 point's shape (0x04 + 64 bytes): the controller checks the size, not the curve. */
    private static final String PUB = b64(point());

    private static byte[] point() {
        byte[] p = filled(65, 0x42);
        p[0] = 4;
        return p;
    }

    private static byte[] filled(int n, int v) {
        byte[] b = new byte[n];
        java.util.Arrays.fill(b, (byte) v);
        return b;
    }

    private static String b64(byte[] b) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    /** An e2ee meeting with its host joined (scenario fields set). */
    private static Scenario e2eeMeeting(String mode) {
        Scenario s = new Scenario(h);
        var r = h.call(0, "POST", "/v1/meetings", s.hostToken, "create-" + UUID.randomUUID(),
                "{\"title\":\"Secret\",\"waiting_room_enabled\":false,\"encryption_mode\":\"" + mode + "\"}");
        assertThat(r.status()).as(r.raw()).isEqualTo(201);
        s.meetingId = r.text("meeting_id");
        var j = s.join(0, s.hostToken, UUID.randomUUID());
        assertThat(j.status()).as(j.raw()).isEqualTo(201);
        s.hostPid = j.text("participant_id");
        return s;
    }

    /** The next volatile event or error of one of our types within {@code millis}; null if none. */
    private static JsonNode next(WsClient ws, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() < deadline) {
            JsonNode n = ws.received.poll(50, TimeUnit.MILLISECONDS);
            if (n == null) continue;
            if ("error".equals(n.path("type").asText()) || "e2ee_identities".equals(n.path("type").asText())) return n;
            String t = n.path("event").path("type").asText();
            if (t.startsWith("e2ee_")) return n.get("event");
        }
        return null;
    }

    private static String batch(long epoch, long seq, String... to) {
        StringBuilder sb = new StringBuilder("{\"type\":\"e2ee_keys\",\"controller_epoch\":" + epoch + ",\"seq\":" + seq
                + ",\"key_generation\":" + seq + ",\"envelopes\":[");
        for (int i = 0; i < to.length; i++) {
            sb.append(i == 0 ? "" : ",").append("{\"to\":\"").append(to[i]).append("\",\"iv\":\"").append(IV)
                    .append("\",\"ciphertext\":\"").append(CT).append("\"}");
        }
        return sb.append("]}").toString();
    }

    private static double refused(String reason) {
        Counter c = h.controllers.get(0).getBean(MeterRegistry.class).find("parley_e2ee_key_messages")
                .tag("type", "e2ee_keys").tag("outcome", reason).counter();
        return c == null ? 0 : c.count();
    }

    private static void assertRefused(WsClient sender, String reason, WsClient... quiet) throws Exception {
        JsonNode r = next(sender, 5000);
        assertThat(r).as("a reply").isNotNull();
        assertThat(r.path("code").asText()).as(r.toString()).isEqualTo("e2ee_envelope_refused");
        assertThat(r.path("reason").asText()).isEqualTo(reason);
        for (WsClient q : quiet) {
            assertThat(next(q, 400)).as("nothing relayed").isNull();
        }
    }

    @Test
    void envelopesReachTheirRecipientsOnlyAndBadOnesAreRefusedCountedAndNotRelayed() throws Exception {
        Scenario s = e2eeMeeting("e2ee");
        String[] b = s.admittedAttendee(0);
        String[] c = s.admittedAttendee(0);
        long epoch = Long.parseLong(h.scalar("SELECT controller_epoch FROM meetings WHERE meeting_id = '" + s.meetingId + "'"));
        try (JsonLogCapture logs = new JsonLogCapture();
             WsClient wa = s.joinedSocket(new String[]{s.hostToken, s.hostPid}, "ta");
             WsClient wb = s.joinedSocket(b, "tb");
             WsClient wc = s.joinedSocket(c, "tc")) {
            // identities: B announces, A and C hear it, B learns whom it already could know
            wb.send("{\"type\":\"e2ee_identity\",\"public_key\":\"" + PUB + "\"}");
            assertThat(next(wb, 5000).path("type").asText()).isEqualTo("e2ee_identities");
            JsonNode heard = next(wa, 5000);
            assertThat(heard.path("type").asText()).isEqualTo("e2ee_identity");
            assertThat(heard.path("participant_id").asText()).isEqualTo(b[1]);
            assertThat(heard.path("public_key").asText()).isEqualTo(PUB);
            assertThat(next(wc, 5000).path("participant_id").asText()).isEqualTo(b[1]);
            wa.send("{\"type\":\"e2ee_identity\",\"public_key\":\"" + PUB + "\"}");
            JsonNode known = next(wa, 5000);
            assertThat(known.path("identities").toString()).contains(b[1]);
            next(wb, 2000);
            next(wc, 2000);
            wa.send("{\"type\":\"e2ee_identity\",\"public_key\":\"AAAA\"}");
            assertThat(next(wa, 5000).path("code").asText()).isEqualTo("e2ee_identity_refused");

            // a good batch: each envelope to its recipient, from A
            wa.send(batch(epoch, 1, b[1], c[1]));
            JsonNode kb = next(wb, 5000);
            assertThat(kb.path("type").asText()).isEqualTo("e2ee_key");
            assertThat(kb.path("from").asText()).isEqualTo(s.hostPid);
            assertThat(kb.path("ciphertext").asText()).isEqualTo(CT);
            assertThat(kb.path("controller_epoch").asLong()).isEqualTo(epoch);
            assertThat(next(wc, 5000).path("type").asText()).isEqualTo("e2ee_key");
            assertThat(next(wa, 400)).as("the sender gets no reply for a relayed batch").isNull();

            double before = refused("replayed");
            wa.send(batch(epoch, 1, b[1], c[1]));
            assertRefused(wa, "replayed", wb, wc);
            assertThat(refused("replayed")).isEqualTo(before + 1);

            wa.send(batch(epoch, 2, b[1], UUID.randomUUID().toString()));
            assertRefused(wa, "recipient_not_member", wb, wc);
            wa.send(batch(epoch, 3, b[1], s.hostPid));
            assertRefused(wa, "recipient_not_member", wb);
            wa.send(batch(epoch - 1, 4, b[1]));
            assertRefused(wa, "stale_epoch", wb);
            wa.send(batch(epoch + 1, 5, b[1]));
            assertRefused(wa, "stale_epoch", wb);
            for (String bad : new String[]{
                    batch(epoch, 6, b[1]).replace(IV, b64(new byte[11])),
                    batch(epoch, 7, b[1]).replace(CT, b64(new byte[8])),
                    batch(epoch, 8, b[1]).replace(CT, "not base64!"),
                    batch(epoch, 9, b[1], b[1]),
                    batch(epoch, 10),
                    batch(epoch, 11, "not-a-uuid"),
                    "{\"type\":\"e2ee_keys\",\"controller_epoch\":\"1\",\"seq\":12,\"key_generation\":1,\"envelopes\":[]}",
                    "{\"type\":\"e2ee_keys\",\"seq\":-1}"}) {
                wa.send(bad);
                assertRefused(wa, "malformed", wb);
            }
            assertThat(refused("malformed")).isGreaterThanOrEqualTo(8);

            // C is removed: nobody can send it a key any more
            var rm = s.command(0, "{\"type\":\"remove_participant\",\"participant_id\":\"" + c[1] + "\"}");
            assertThat(rm.status()).as(rm.raw()).isEqualTo(201);
            wa.send(batch(epoch, 20, b[1], c[1]));
            assertRefused(wa, "recipient_not_member", wb);
            wa.send(batch(epoch, 21, b[1]));
            assertThat(next(wb, 5000).path("type").asText()).as("the next batch without C goes through").isEqualTo("e2ee_key");

            // a participant whose departure committed while its socket still lives sends nothing on
            try (var conn = h.db(); var st = conn.createStatement()) {
                st.execute("UPDATE meeting_participants SET admission_state = 'left' WHERE participant_id = '" + b[1] + "'");
            }
            wb.send(batch(epoch, 1, s.hostPid));
            assertRefused(wb, "sender_not_member", wa);

            // no key bytes in any log line (DEBUG included): neither a public key nor an envelope
            assertThat(logs.text()).contains("e2ee_keys refused: replayed").doesNotContain(PUB).doesNotContain(CT).doesNotContain(IV);
        }
    }

    @Test
    void aTransportMeetingRelaysNoKeys() throws Exception {
        Scenario s = e2eeMeeting("transport");
        String[] b = s.admittedAttendee(0);
        long epoch = Long.parseLong(h.scalar("SELECT controller_epoch FROM meetings WHERE meeting_id = '" + s.meetingId + "'"));
        try (WsClient wa = s.joinedSocket(new String[]{s.hostToken, s.hostPid}, "ta");
             WsClient wb = s.joinedSocket(b, "tb")) {
            wa.send(batch(epoch, 1, b[1]));
            assertRefused(wa, "not_e2ee", wb);
        }
    }
}
