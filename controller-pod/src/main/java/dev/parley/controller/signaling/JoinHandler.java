package dev.parley.controller.signaling;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.control.Cursor;
import dev.parley.controller.db.Db;
import dev.parley.controller.meeting.MeetingRow;
import dev.parley.controller.ownership.Ownership;
import dev.parley.controller.ownership.Route;
import dev.parley.controller.participant.ParticipantRow;
import dev.parley.platform.ticket.ConnectTicketClaims;
import dev.parley.platform.ticket.TicketRejectedException;
import dev.parley.platform.ticket.TicketVerifier;
import io.micronaut.websocket.CloseReason;
import jakarta.inject.Singleton;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.UUID;

/**
 * {@code join} and {@code resume}: the connect ticket is verified and consumed, the participant's right to the
 * socket read from PostgreSQL (never a cache), the socket bound to it, and the control events delivered from the
 * right cursor ({@code resume_after} replayed, or {@code snapshot_required}).
 */
@Singleton
public final class JoinHandler {
    private final SessionRegistry registry;
    private final TicketVerifier verifier;
    private final Ownership ownership;
    private final Db db;
    private final UnjoinedPhase unjoined;
    private final OwnerPresence owner;
    private final PresenceNotices notices;
    private final PagedRoster paged;

    public JoinHandler(SessionRegistry registry, TicketVerifier verifier, Ownership ownership, Db db,
                       UnjoinedPhase unjoined, OwnerPresence owner, PresenceNotices notices, PagedRoster paged) {
        this.paged = paged;
        this.registry = registry;
        this.verifier = verifier;
        this.ownership = ownership;
        this.db = db;
        this.unjoined = unjoined;
        this.owner = owner;
        this.notices = notices;
    }

    /** {@code resume}: a join that continues after {@code resume_after}. */
    void resume(Conn c, ObjectNode msg) {
        Cursor cur = Cursor.parse(msg.path("resume_after").asText(null));
        if (cur == null) {
            error(c, "invalid_cursor", "resume_after must be '{epoch}.{seq}'");
            return;
        }
        join(c, msg, cur);
    }

    /** What the join reads from PostgreSQL, in one snapshot. */
    private record State(MeetingRow meeting, ParticipantRow participant, long admittedAtMillis) {
    }

    void join(Conn c, ObjectNode msg, Cursor resumeAfter) {
        if (c.joined()) {
            error(c, "already_joined", "this socket is already joined");
            return;
        }
        // a client that shows a paged roster says so up front: paged before anything is replayed (resume)
        dev.parley.controller.coalesce.RosterWatch watch = null;
        if (msg.has("roster_page")) {
            try {
                watch = dev.parley.controller.coalesce.RosterWatch.parse(msg.get("roster_page"));
            } catch (dev.parley.controller.http.ApiException e) {
                error(c, e.code(), e.getMessage()); // the ticket is not used up: the client may try again
                return;
            }
        }
        ConnectTicketClaims t;
        try {
            t = verifier.verifyAndConsume(msg.path("connect_ticket").asText(""), null);
        } catch (TicketRejectedException e) {
            error(c, e.code(), e.getMessage());
            c.session.close(CloseReason.POLICY_VIOLATION);
            return;
        }
        UUID m = UUID.fromString(t.mid());
        UUID p = UUID.fromString(t.pid());
        Long epoch = ownership.epochIfOwned(m);
        boolean remote = false;
        if (epoch == null) {
            Route r;
            try {
                r = ownership.route(m);
            } catch (RuntimeException e) {
                error(c, "owner_unavailable", "meeting ownership is changing; reconnect");
                c.session.close(CloseReason.TRY_AGAIN_LATER);
                return;
            }
            if (r instanceof Route.Local local) {
                epoch = local.epoch();
            } else {
                // another pod owns the meeting: accepted here all the same, with the epoch PostgreSQL holds;
                // its events arrive through the outbox relay's cross-pod fan-out (docs/controller.md)
                remote = true;
            }
        }
        long ownEpoch = remote ? -1 : epoch;
        // authorisation from the source of truth, not from a cache
        State state = db.readSnapshot(x -> read(x, m, p));
        MeetingRow mr = state.meeting();
        ParticipantRow pr = state.participant();
        long ep = remote ? mr.controllerEpoch() : ownEpoch;
        if (mr.controllerEpoch() != ep) {
            error(c, "owner_changed", "reconnect");
            c.session.close(CloseReason.TRY_AGAIN_LATER);
            return;
        }
        if (mr.isClosing() || pr == null || !pr.isAdmitted()) {
            error(c, "not_admitted", "the participant is not admitted");
            c.session.close(CloseReason.POLICY_VIOLATION);
            return;
        }
        if (pr.transportGeneration() != t.gen()) {
            error(c, "stale_generation", "a newer transport generation exists");
            c.session.close(CloseReason.POLICY_VIOLATION);
            return;
        }
        c.meetingId = m;
        c.participantId = p;
        c.generation = t.gen();
        c.epoch = ep;
        c.sfuPod = t.sfu();
        c.deviceKey = t.dk();
        c.admittedAtMillis = state.admittedAtMillis();
        c.remote = remote;
        if (watch != null && paged.mayPage(c.meetingId)) { // an e2ee meeting's sockets always get the full roster
            c.watch = watch;
            c.paged = true;
        }
        unjoined.ended(c);
        owner.cancelGrace(m, p);
        boolean replayable = resumeAfter != null && resumeAfter.epoch() == ep && resumeAfter.seq() <= mr.controlSeq();
        c.lastSeq = replayable ? resumeAfter.seq() : mr.controlSeq();
        registry.add(c);
        // paged roster: decided before any event is replayed to the socket (the tally is read once per meeting)
        ObjectNode roster = paged.joined(c);
        if (resumeAfter != null && !replayable) {
            c.lastSeq = mr.controlSeq();
            registry.sendSnapshotRequired(c, resumeAfter.epoch() != ep ? "controller epoch changed" : "unknown cursor");
        } else if (replayable && !registry.catchUp(c)) {
            c.lastSeq = currentSeq(m);
        }
        ObjectNode out = Replies.typed("joined");
        out.put("cursor", ep + "." + c.lastSeq);
        out.put("participant_id", p.toString());
        out.put("transport_generation", c.generation);
        out.put("controller_epoch", ep);
        out.set("roster", roster);
        registry.sendRaw(c, out);
        c.live = true;
        // events committed while we were joining
        registry.catchUp(c);
        if (remote) {
            // the owner runs the reconnect grace: it must know this participant has a live socket here
            notices.opened(m, p, c.generation);
        }
    }

    private static State read(Connection x, UUID m, UUID p) throws SQLException {
        MeetingRow mr = MeetingRow.load(x, m, false);
        ParticipantRow pr = ParticipantRow.find(x, m, p, false);
        long admitted = 0;
        try (var ps = x.prepareStatement("SELECT admitted_at FROM meeting_participants WHERE meeting_id = ? AND participant_id = ?")) {
            ps.setObject(1, m);
            ps.setObject(2, p);
            try (var rs = ps.executeQuery()) {
                if (rs.next() && rs.getTimestamp(1) != null) {
                    admitted = rs.getTimestamp(1).getTime();
                }
            }
        }
        return new State(mr, pr, admitted);
    }

    private long currentSeq(UUID m) {
        return db.readSnapshot(x -> MeetingRow.load(x, m, false).controlSeq());
    }

    private void error(Conn c, String code, String detail) {
        registry.sendRaw(c, Replies.error(code, detail));
    }
}
