package dev.parley.controller.signaling;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.interest.InterestService;
import dev.parley.controller.interest.Refusal;
import jakarta.inject.Singleton;

import java.util.List;

/**
 * {@code position} messages (area-of-interest meetings): the owner applies them ({@link InterestService}); a
 * non-owner's socket relays them to the owner like offers. Nothing is answered unless the position is refused.
 */
@Singleton
final class Positions {
    private final InterestService interest;
    private final OwnerRelay ownerRelay;
    private final SessionRegistry registry;

    Positions(InterestService interest, OwnerRelay ownerRelay, SessionRegistry registry) {
        this.interest = interest;
        this.ownerRelay = ownerRelay;
        this.registry = registry;
    }

    void received(Conn c, ObjectNode msg) {
        if (!c.joined()) {
            registry.sendRaw(c, Replies.error("not_joined", "send join or resume first"));
            return;
        }
        if (!ownerRelay.relayedToOwner(c, msg)) {
            replies(interest, Bound.of(c, c.epoch), msg).forEach(r -> registry.sendRaw(c, r));
        }
    }

    /** The owner's side, for this pod's sockets and relayed ones: an error when refused, else nothing. */
    static List<ObjectNode> replies(InterestService interest, Bound b, ObjectNode msg) {
        Refusal r = interest.position(b.meetingId(), b.participantId(), msg);
        return r == null ? List.of() : List.of(Replies.error(r.code(), r.detail()));
    }
}
