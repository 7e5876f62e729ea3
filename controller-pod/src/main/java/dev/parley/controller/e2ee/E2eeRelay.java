package dev.parley.controller.e2ee;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.control.SessionHub;
import dev.parley.controller.http.JsonBody;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The two key messages of an e2ee meeting (docs/e2ee.md "Messages"), relayed as volatile events:
 * <ul>
 * <li>{@code e2ee_identity}: a member's public identity key, to every member; the sender gets the keys of the
 * members it does not know yet ({@code e2ee_identities}).</li>
 * <li>{@code e2ee_keys}: one envelope per recipient, each to its recipient only, after checking the whole batch:
 * the sender and every recipient are admitted members now, the batch names the meeting's current controller epoch
 * and a sequence above the sender's previous one. A batch that fails a check is refused as a whole with an
 * {@code e2ee_envelope_refused} error and counted by reason; nothing of it is relayed.</li>
 * </ul>
 * The controller sees who sends keys to whom and when, never a key: it has no private key to open an envelope.
 */
@Singleton
public class E2eeRelay {
    private static final Logger LOG = LoggerFactory.getLogger(E2eeRelay.class);
    /** An uncompressed P-256 point: 0x04 || x || y. */
    static final int PUBLIC_KEY_BYTES = 65;

    private final Members members;
    private final Identities identities;
    private final SessionHub hub;
    private final MeterRegistry meters;

    public E2eeRelay(Members members, Identities identities, SessionHub hub, MeterRegistry meters) {
        this.members = members;
        this.identities = identities;
        this.hub = hub;
        this.meters = meters;
    }

    /** Whether {@code type} is a key message (the signaling socket routes it here). */
    public static boolean handles(String type) {
        return "e2ee_identity".equals(type) || "e2ee_keys".equals(type);
    }

    /** One key message from a joined socket; the replies for that socket (an error when refused). */
    public List<ObjectNode> handle(Sender s, ObjectNode msg) {
        String type = msg.path("type").asText();
        try {
            List<ObjectNode> replies = "e2ee_identity".equals(type) ? identity(s, msg) : keys(s, msg);
            count(type, "relayed");
            return replies;
        } catch (Refusal r) {
            count(type, r.reason());
            LOG.info("{} refused: {}", type, r.reason()); // the reason only: no key bytes, no envelope
            ObjectNode o = JsonBody.obj();
            o.put("type", "error");
            o.put("code", "e2ee_identity".equals(type) ? "e2ee_identity_refused" : "e2ee_envelope_refused");
            o.put("reason", r.reason());
            o.put("detail", r.getMessage());
            return List.of(o);
        }
    }

    private List<ObjectNode> identity(Sender s, ObjectNode msg) {
        String key = msg.path("public_key").isTextual() ? msg.get("public_key").asText() : null;
        if (Base64Url.decodedLength(key) != PUBLIC_KEY_BYTES || !key.startsWith("B")) { // "B…" = first byte 0x04
            throw new Refusal("malformed", "'public_key' must be an uncompressed P-256 point (65 bytes), base64url");
        }
        Members.Snapshot m = current(s);
        identities.put(s.meetingId(), s.participantId(), key);
        ObjectNode ev = JsonBody.obj();
        ev.put("type", "e2ee_identity");
        ev.put("participant_id", s.participantId().toString());
        ev.put("public_key", key);
        for (UUID p : m.admitted()) {
            if (!p.equals(s.participantId())) {
                hub.volatileEventTo(s.meetingId(), p.toString(), ev);
            }
        }
        ObjectNode reply = JsonBody.obj();
        reply.put("type", "e2ee_identities");
        ArrayNode list = reply.putArray("identities");
        for (Map.Entry<UUID, String> e : identities.of(s.meetingId(), m.admitted()).entrySet()) {
            if (!e.getKey().equals(s.participantId())) {
                list.addObject().put("participant_id", e.getKey().toString()).put("public_key", e.getValue());
            }
        }
        return List.of(reply);
    }

    private List<ObjectNode> keys(Sender s, ObjectNode msg) {
        KeyBatch b = KeyBatch.parse(msg);
        if (b.controllerEpoch() != s.epoch()) {
            throw new Refusal("stale_epoch", "the batch names controller epoch " + b.controllerEpoch() + ", the socket is bound to " + s.epoch());
        }
        Members.Snapshot m = current(s);
        for (KeyBatch.Envelope e : b.envelopes()) {
            if (e.to().equals(s.participantId()) || !m.has(e.to())) {
                throw new Refusal("recipient_not_member", "an envelope is addressed to a participant who is not an admitted member");
            }
        }
        if (!identities.advance(s.meetingId(), s.participantId(), b.seq())) {
            throw new Refusal("replayed", "batch sequence " + b.seq() + " is not above the previous one");
        }
        for (KeyBatch.Envelope e : b.envelopes()) {
            ObjectNode ev = JsonBody.obj();
            ev.put("type", "e2ee_key");
            ev.put("from", s.participantId().toString());
            ev.put("controller_epoch", b.controllerEpoch());
            ev.put("key_generation", b.keyGeneration());
            ev.put("iv", e.iv());
            ev.put("ciphertext", e.ciphertext());
            hub.volatileEventTo(s.meetingId(), e.to().toString(), ev);
        }
        return List.of();
    }

    /** The members now; refuses a sender that is no member, an e2ee-less meeting and an epoch that moved on. */
    private Members.Snapshot current(Sender s) {
        Members.Snapshot m = members.read(s.meetingId());
        if (!"e2ee".equals(m.encryptionMode())) {
            throw new Refusal("not_e2ee", "the meeting is not end-to-end encrypted");
        }
        if (m.epoch() != s.epoch()) {
            throw new Refusal("stale_epoch", "the meeting's controller epoch moved on; resume the socket");
        }
        if (!m.has(s.participantId())) {
            throw new Refusal("sender_not_member", "only admitted participants send keys");
        }
        return m;
    }

    private void count(String type, String outcome) {
        Counter.builder("parley_e2ee_key_messages")
                .description("e2ee key messages by type and outcome (relayed or the refusal reason)")
                .tag("type", type).tag("outcome", outcome).register(meters).increment();
    }
}
