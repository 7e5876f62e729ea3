package dev.parley.controller.signaling;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.config.ParleyConfig;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.media.GrantService;
import dev.parley.controller.media.SfuClient;
import dev.parley.controller.media.SfuSelector;
import dev.parley.controller.meeting.MeetingSettings;
import dev.parley.controller.observability.RequestMetrics;
import dev.parley.platform.etcd.SfuEntry;
import dev.parley.platform.grant.Grant;
import dev.parley.platform.internal.CreateTransportRequest;
import dev.parley.platform.internal.PublishSource;
import dev.parley.platform.internal.TrackSubscription;
import dev.parley.platform.internal.TransportKind;
import dev.parley.platform.internal.UpdateSubscriptionsRequest;
import dev.parley.platform.ticket.TicketSigner;
import io.micrometer.core.instrument.Timer;
import jakarta.inject.Singleton;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The owner's media relay: an {@code offer} becomes a transport at the socket's SFU (with the participant's current
 * grant and a fresh single-use ticket), a {@code subscribe} a subscription update there; no database on this path.
 * A subscribe offer's {@code slot_deltas: true} goes with the transport request (the SFU then tells top-N moves as
 * {@code slot_delta}); answers and {@code subscribed} carry the map's {@code slot_version}.
 * Serves this pod's sockets and, through {@link OwnerRelay}, sockets on other pods.
 */
@Singleton
public final class MediaRelay {
    /** How long a client waits before sending an offer again that was answered {@code lease_in_doubt}. */
    static final int LEASE_RETRY_MS = 500;
    private static final List<PublishSource> INVALID_SOURCES = Collections.unmodifiableList(new ArrayList<>());

    private final SessionRegistry registry;
    private final GrantService grants;
    private final SfuClient sfus;
    private final SfuSelector selector;
    private final TicketSigner signer;
    private final ParleyConfig cfg;
    private final Timer joinToMediaReady;
    private final MeetingSettings settings;

    public MediaRelay(SessionRegistry registry, GrantService grants, SfuClient sfus, SfuSelector selector,
                      TicketSigner signer, ParleyConfig cfg, RequestMetrics metrics, MeetingSettings settings) {
        this.settings = settings;
        this.registry = registry;
        this.grants = grants;
        this.sfus = sfus;
        this.selector = selector;
        this.signer = signer;
        this.cfg = cfg;
        this.joinToMediaReady = metrics.joinToMediaReady();
    }

    /** An offer on a joined socket of a meeting this pod owns; its first answer records join → media ready. */
    void offer(Conn c, ObjectNode msg) {
        if (offer(Bound.of(c, c.epoch), msg, o -> registry.sendRaw(c, o)) && !c.mediaReadyRecorded && c.admittedAtMillis > 0) {
            c.mediaReadyRecorded = true;
            joinToMediaReady.record(Math.max(0, System.currentTimeMillis() - c.admittedAtMillis), TimeUnit.MILLISECONDS);
        }
    }

    /** A subscription update on a joined socket of a meeting this pod owns. */
    void subscribe(Conn c, ObjectNode msg) {
        subscribe(Bound.of(c, c.epoch), msg, o -> registry.sendRaw(c, o));
    }

    /** A relayed offer or subscription: the messages for the socket. */
    List<ObjectNode> relayed(Bound b, ObjectNode msg) {
        List<ObjectNode> replies = new ArrayList<>();
        switch (msg.path("type").asText("")) {
            case "offer" -> offer(b, msg, replies::add);
            case "subscribe" -> subscribe(b, msg, replies::add);
            default -> replies.add(Replies.error("unknown_message", "only offer and subscribe are relayed"));
        }
        return replies;
    }

    /** Relays an offer to the SFU; the answer or an error goes to {@code out}. True when answered. */
    private boolean offer(Bound c, ObjectNode msg, Consumer<ObjectNode> out) {
        TransportKind kind;
        try {
            kind = TransportKind.fromWire(msg.path("transport").asText(""));
        } catch (IllegalArgumentException e) {
            out.accept(Replies.error("invalid_transport", "transport must be publish or subscribe"));
            return false;
        }
        String sdp = msg.path("sdp").asText(null);
        if (sdp == null || sdp.isEmpty() || sdp.length() > 200_000) {
            out.accept(Replies.error("invalid_sdp", "sdp must be a non-empty string"));
            return false;
        }
        List<PublishSource> sources = kind == TransportKind.PUBLISH ? publishSources(msg.get("sources")) : null;
        if (sources == INVALID_SOURCES) {
            out.accept(Replies.error("invalid_sources", "sources must be at most 16 of {mid, source: microphone|camera|screen}"));
            return false;
        }
        Grant grant = grants.currentGrant(c.meetingId(), c.participantId());
        if (grant == null && grants.leaseInDoubt()) {
            // The owner cannot vouch for its lease right now (an etcd hiccup): the participant is not refused,
            // the offer is retried as it is (no new transport generation).
            ObjectNode retry = Replies.error("lease_in_doubt", "the meeting's controller cannot confirm its lease; retry the offer");
            retry.put("transport", kind.wire());
            retry.put("retry_after_ms", LEASE_RETRY_MS);
            out.accept(retry);
            return false;
        }
        SfuEntry sfu = selector.get(c.sfuPod()).orElse(null);
        if (grant == null || sfu == null || !selector.isUsable(sfu.pod())) {
            out.accept(Replies.error(grant == null ? "not_authorized" : "media_server_unavailable",
                    "request a new transport generation"));
            return false;
        }
        // the client's ticket was used up by this socket; each SFU transport gets its own single-use ticket
        TicketSigner.IssuedTicket ticket = signer.issue(c.meetingId().toString(), c.participantId().toString(),
                c.generation(), sfu.pod(), c.deviceKey(), TicketSigner.MAX_LIFETIME);
        CreateTransportRequest req = new CreateTransportRequest(c.meetingId().toString(), c.participantId().toString(),
                c.generation(), c.epoch(), kind, ticket.token(), sdp, grant, cfg.publicUrl() + "/internal/v1/sfu-events",
                sources, settings.audioTopN(c.meetingId()),
                kind == TransportKind.SUBSCRIBE && msg.path("slot_deltas").asBoolean(false) ? Boolean.TRUE : null);
        var res = sfus.createTransport(sfu.internalUrl(), req).join();
        if (res.refused()) {
            // the SFU process is gone: this client and everyone else on it move now (new generation)
            selector.markUnreachable(sfu.pod());
            registry.volatileMessage(c.meetingId(), "media_server_lost", sfu.pod());
            out.accept(Replies.error("media_server_unavailable", "request a new transport generation"));
            return false;
        }
        if (!res.ok()) {
            out.accept(Replies.error(res.error() == null ? "media_server_error" : res.error().code(),
                    "the media server refused the offer"));
            return false;
        }
        ObjectNode answer = Replies.typed("answer");
        answer.put("transport", kind.wire());
        answer.put("transport_id", res.body().transportId());
        answer.put("sdp", res.body().sdpAnswer());
        answer.set("slot_assignments", JsonBody.JSON.valueToTree(res.body().slotAssignments() == null ? List.of()
                : res.body().slotAssignments()));
        if (res.body().slotVersion() != null) answer.put("slot_version", res.body().slotVersion());
        out.accept(answer);
        return true;
    }

    /**
     * The publish offer's {@code sources} ({@code [{mid, source}]}, what each m-section carries): null when absent,
     * {@link #INVALID_SOURCES} when malformed (the offer is refused and nothing reaches the SFU).
     */
    private static List<PublishSource> publishSources(JsonNode n) {
        if (n == null || n.isNull()) return null;
        if (!n.isArray() || n.size() > PublishSource.MAX) return INVALID_SOURCES;
        List<PublishSource> out = new ArrayList<>(n.size());
        for (JsonNode s : n) {
            if (!s.path("mid").isTextual() || !s.path("source").isTextual()) return INVALID_SOURCES;
            out.add(new PublishSource(s.get("mid").asText(), s.get("source").asText()));
        }
        return PublishSource.valid(out) ? out : INVALID_SOURCES;
    }

    /** Relays a subscription update to the SFU; the answer or an error goes to {@code out}. */
    private void subscribe(Bound c, ObjectNode msg, Consumer<ObjectNode> out) {
        JsonNode tracks = msg.get("tracks");
        if (tracks == null || !tracks.isArray() || tracks.size() > 200) {
            out.accept(Replies.error("invalid_tracks", "tracks must be an array of at most 200 entries"));
            return;
        }
        List<TrackSubscription> list = new ArrayList<>();
        for (JsonNode t : (ArrayNode) tracks) {
            if (!t.path("track_id").isTextual() || (t.has("pinned") && !t.get("pinned").isBoolean())) {
                out.accept(Replies.error("invalid_tracks", "every track needs a string track_id; pinned is a boolean"));
                return;
            }
            list.add(new TrackSubscription(t.get("track_id").asText(), t.path("max_width").asInt(0),
                    t.path("max_height").asInt(0), t.path("max_fps").asInt(0), t.path("pinned").asBoolean(false)));
        }
        SfuEntry sfu = selector.get(c.sfuPod()).orElse(null);
        if (sfu == null) {
            out.accept(Replies.error("media_server_unavailable", "request a new transport generation"));
            return;
        }
        var res = sfus.updateSubscriptions(sfu.internalUrl(), c.meetingId().toString(), c.participantId().toString(),
                new UpdateSubscriptionsRequest(c.epoch(), list)).join();
        if (!res.ok()) {
            out.accept(Replies.error(res.error() == null ? "media_server_error" : res.error().code(),
                    "subscription update refused"));
            return;
        }
        ObjectNode done = Replies.typed("subscribed");
        done.set("slot_assignments", JsonBody.JSON.valueToTree(res.body().slotAssignments() == null ? List.of()
                : res.body().slotAssignments()));
        if (res.body().slotVersion() != null) done.put("slot_version", res.body().slotVersion());
        out.accept(done);
    }
}
