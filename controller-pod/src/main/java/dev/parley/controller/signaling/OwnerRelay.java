package dev.parley.controller.signaling;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.interest.InterestService;
import dev.parley.controller.e2ee.E2eeRelay;
import dev.parley.controller.e2ee.Sender;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.ownership.Ownership;
import dev.parley.controller.ownership.Route;
import dev.parley.controller.peer.PodLink;
import jakarta.inject.Singleton;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * Offers, subscriptions and e2ee key messages need the owner (its grants, its SFU choice, its epoch, the pods
 * its volatile events reach): on a socket accepted by a
 * non-owner they are relayed to the owner over the internal API and its replies are sent back on the socket (this
 * pod runs them itself when it has become the owner). Both sides of that relay live here.
 */
@Singleton
public final class OwnerRelay {
    private final Ownership ownership;
    private final PodLink link;
    private final SessionRegistry registry;
    private final MediaRelay media;
    private final InterestService interest;
    private final E2eeRelay e2ee;

    public OwnerRelay(Ownership ownership, PodLink link, SessionRegistry registry, MediaRelay media,
                      InterestService interest, E2eeRelay e2ee) {
        this.ownership = ownership;
        this.link = link;
        this.registry = registry;
        this.media = media;
        this.interest = interest;
        this.e2ee = e2ee;
    }

    /**
     * The owner handles a relayed message: e2ee key messages (delivered from the owner to every pod), positions
     * (the area-of-interest state), offers and subscriptions (the SFU).
     */
    private List<ObjectNode> onOwner(Bound b, ObjectNode msg) {
        String type = msg.path("type").asText("");
        if (E2eeRelay.handles(type)) {
            return e2ee.handle(new Sender(b.meetingId(), b.participantId(), b.epoch()), msg);
        }
        return "position".equals(type) ? Positions.replies(interest, b, msg) : media.relayed(b, msg);
    }

    /** The non-owner's side: true when the socket is a non-owner's and the message was handled that way. */
    boolean relayedToOwner(Conn c, ObjectNode msg) {
        if (!c.remote) {
            return false;
        }
        ObjectNode body = JsonBody.obj();
        body.put("meeting_id", c.meetingId.toString());
        body.put("participant_id", c.participantId.toString());
        body.put("transport_generation", c.generation);
        body.put("sfu_pod", c.sfuPod);
        body.put("device_key", c.deviceKey);
        body.set("message", msg);
        for (int attempt = 1; attempt <= 2; attempt++) {
            Route r;
            try {
                r = ownership.route(c.meetingId);
            } catch (RuntimeException e) {
                break;
            }
            if (r instanceof Route.Local local) {
                for (ObjectNode reply : onOwner(Bound.of(c, local.epoch()), msg)) {
                    registry.sendRaw(c, reply);
                }
                return true;
            }
            PodLink.Reply reply = link.call(((Route.Remote) r).owner().internalUrl(), PresenceController.RELAY_PATH,
                    body.toString(), Duration.ofSeconds(15));
            if (reply.status() == 200 && reply.body() != null && reply.body().path("replies").isArray()) {
                for (JsonNode n : reply.body().get("replies")) {
                    if (n.isObject()) {
                        registry.sendRaw(c, (ObjectNode) n);
                    }
                }
                return true;
            }
            if (reply.status() != 409) {
                break; // 409: ownership moved between the lookup and the call; look again once
            }
        }
        registry.sendRaw(c, Replies.error("owner_unavailable", "the meeting's controller did not answer; retry"));
        return true;
    }

    /**
     * The owner's side of a relayed offer or subscription (the non-owner verified the socket's ticket): the
     * replies for the socket, or null when this pod does not own the meeting.
     */
    List<ObjectNode> relayed(UUID m, UUID p, long gen, String sfuPod, String deviceKey, ObjectNode msg) {
        Long epoch = ownership.epochIfOwned(m);
        return epoch == null ? null : onOwner(new Bound(m, p, gen, sfuPod, deviceKey, epoch), msg);
    }
}
