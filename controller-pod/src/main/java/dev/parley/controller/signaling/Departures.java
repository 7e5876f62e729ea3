package dev.parley.controller.signaling;

import dev.parley.controller.interest.InterestService;
import dev.parley.controller.media.GrantService;
import dev.parley.controller.participant.ParticipantService;
import io.micronaut.websocket.CloseReason;
import jakarta.inject.Singleton;

/**
 * How a joined socket ends: the participant's {@code leave} (left at once, on the owner) or the socket's close (the
 * reconnect grace starts once the participant has no socket left on any pod).
 */
@Singleton
public final class Departures {
    private final SessionRegistry registry;
    private final ParticipantService participants;
    private final GrantService grants;
    private final OwnerPresence owner;
    private final PresenceNotices notices;
    private final InterestService interest;

    public Departures(SessionRegistry registry, ParticipantService participants, GrantService grants,
                      OwnerPresence owner, PresenceNotices notices, InterestService interest) {
        this.registry = registry;
        this.participants = participants;
        this.grants = grants;
        this.owner = owner;
        this.notices = notices;
        this.interest = interest;
    }

    /** {@code leave} on a joined socket: answered {@code left}, then the socket is closed. */
    void leave(Conn c) {
        c.left = true;
        try {
            if (c.remote) {
                // in order after this participant's earlier notices; answered once the owner recorded it
                notices.left(c.meetingId, c.participantId, c.generation);
            } else {
                registry.publish(c.meetingId, participants.leave(c.meetingId, c.epoch, c.participantId, -1, "left"));
                grants.refresh(c.meetingId); // a participant who left must not keep media rights
                interest.gone(c.meetingId, c.participantId);
            }
        } finally {
            registry.sendRaw(c, Replies.typed("left"));
            c.session.close(CloseReason.NORMAL);
        }
    }

    /** The socket closed (on its own executor, after every message it sent). */
    void closed(Conn c) {
        registry.remove(c);
        if (!c.joined() || c.left) {
            return;
        }
        if (c.remote) {
            notices.closed(c);
            return;
        }
        if (registry.hasOtherSocket(c.meetingId, c.participantId, c)
                || registry.hasRemoteSocket(c.meetingId, c.participantId)) {
            return;
        }
        owner.startGrace(c.meetingId, c.participantId, c.generation, c.epoch);
    }
}
