package dev.parley.controller.signaling;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.coalesce.RosterChange;
import dev.parley.controller.coalesce.RosterEvents;
import dev.parley.controller.coalesce.RosterSummaryJson;
import dev.parley.controller.coalesce.RosterTally;
import dev.parley.controller.coalesce.RosterWatch;
import dev.parley.controller.control.ControlEvent;
import dev.parley.controller.db.Db;
import dev.parley.controller.http.ApiException;
import dev.parley.controller.meeting.MeetingSettings;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The paged roster (issue 18): above the meeting's {@code roster_page_above} admitted participants, or once its
 * client sent a {@code roster_page}, a socket is <em>paged</em> (and stays so): of the joins and departures it
 * gets only the changes of the participants it watches ({@link RosterWatch}), inside a {@code roster_summary} that
 * also carries the meeting's counts and stands for the skipped events' cursor range, so cursors and resume stay
 * exact. The counts come from a per-meeting {@link RosterTally} kept from the events this pod delivers, seeded once
 * from PostgreSQL when the meeting's first socket joins here.
 */
@Singleton
final class PagedRoster {
    private static final Logger LOG = LoggerFactory.getLogger(PagedRoster.class);

    /** A meeting's tally and whether its load from PostgreSQL is done (events are applied meanwhile). */
    private record Holder(RosterTally tally, CompletableFuture<Void> loaded) {
    }

    private final Map<UUID, Holder> tallies = new ConcurrentHashMap<>();
    private final Db db;
    private final MeetingSettings settings;

    PagedRoster(Db db, MeetingSettings settings) {
        this.db = db;
        this.settings = settings;
    }

    /** Committed (or fanned-in) events of a meeting: every participant document goes into its tally. */
    void observe(UUID meetingId, List<ControlEvent> events) {
        Holder h = tallies.get(meetingId);
        if (h == null) {
            return;
        }
        for (ControlEvent e : events) {
            h.tally().apply(e.payload());
        }
    }

    /** The meeting's tally, loaded on first use (null if PostgreSQL could not be read: nothing is paged then). */
    RosterTally tally(UUID meetingId) {
        Holder h = tallies.get(meetingId);
        if (h == null) {
            Holder fresh = new Holder(new RosterTally(), new CompletableFuture<>());
            h = tallies.putIfAbsent(meetingId, fresh);
            if (h == null) {
                h = fresh;
                load(meetingId, fresh);
            }
        }
        try {
            h.loaded().get(5, TimeUnit.SECONDS);
            return h.tally();
        } catch (Exception e) {
            return null;
        }
    }

    /** The tally if the meeting has one here and it is loaded (delivery never waits for PostgreSQL). */
    RosterTally loadedTally(UUID meetingId) {
        Holder h = tallies.get(meetingId);
        return h != null && h.loaded().isDone() && !h.loaded().isCompletedExceptionally() ? h.tally() : null;
    }

    private void load(UUID meetingId, Holder h) {
        try {
            db.read(c -> {
                try (PreparedStatement ps = c.prepareStatement("SELECT participant_id, version, role, admission_state "
                        + "FROM meeting_participants WHERE meeting_id = ? AND admission_state IN ('admitted', 'waiting')")) {
                    ps.setObject(1, meetingId);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            h.tally().put(rs.getString(1), rs.getLong(2), rs.getString(3), rs.getString(4));
                        }
                    }
                }
                return null;
            });
            h.loaded().complete(null);
        } catch (RuntimeException e) {
            LOG.warn("roster tally of a meeting could not be read: {}", e.toString());
            tallies.remove(meetingId, h); // the next socket tries again
            h.loaded().completeExceptionally(e);
        }
    }

    /** The meeting's sockets are gone here. */
    void forget(UUID meetingId) {
        tallies.remove(meetingId);
    }

    /** Whether the meeting's sockets may be paged at all (not in an end-to-end encrypted meeting). */
    boolean mayPage(UUID meetingId) {
        return settings.rosterPageAbove(meetingId) != MeetingSettings.NEVER_PAGED;
    }

    /** At join: whether the socket starts paged, said in the {@code joined} answer's {@code roster}. */
    ObjectNode joined(Conn c) {
        int above = settings.rosterPageAbove(c.meetingId);
        RosterTally t = tally(c.meetingId);
        ObjectNode out = dev.parley.controller.http.JsonBody.obj();
        if (t != null && t.admitted() > above) {
            c.paged = true;
        }
        out.put("paged", c.paged);
        if (above == MeetingSettings.NEVER_PAGED) {
            out.putNull("page_above"); // end-to-end encrypted: never paged
        } else {
            out.put("page_above", above);
        }
        if (t != null) {
            out.put("count", t.admitted());
        }
        return out;
    }

    /** Whether the socket gets the paged roster now (it turns paged when the meeting grows past the setting). */
    boolean paged(Conn c, RosterTally t) {
        if (!c.paged && t != null && t.admitted() > settings.rosterPageAbove(c.meetingId)) {
            c.paged = true;
        }
        return c.paged;
    }

    /**
     * {@code roster_page {participant_ids}}: the socket watches these participants from now on and is paged. The
     * answer is a {@code roster_summary} without cursors (counts only).
     */
    String pageRequested(Conn c, JsonNode msg) {
        RosterWatch watch = RosterWatch.parse(msg); // invalid input: ApiException, answered as an error by the socket
        if (!mayPage(c.meetingId)) {
            throw ApiException.badRequest("roster_paging_unavailable",
                    "an end-to-end encrypted meeting always sends the full roster (every member needs every member's keys)");
        }
        c.watch = watch;
        c.paged = true;
        return summary(c, null, null, Map.of());
    }

    /** A summary for this socket: counts, and for a range its skipped events plus its watched changes. */
    String summary(Conn c, String after, String cursor, Map<String, RosterChange> changes) {
        RosterTally t = loadedTally(c.meetingId);
        return RosterSummaryJson.encode(after, cursor,
                t == null ? new RosterTally.Counts(0, 0, Map.of()) : t.counts(), changes);
    }

    /**
     * Meeting-wide SFU hints about one participant's own connection. A client keeps them only for participants it
     * holds (state.js ignores the others), and a paged client holds only the ones it watches: sent to everyone they
     * were one message per join per resident socket, 80 % of a join storm's bytes at 1,000 participants
     * (bench/large/README.md). The same holds for a connection going away: the SDK acts on a transport's end only
     * when it is its own, and on {@code participant_reconnecting} only for people it holds; a storm of failing
     * transports at 1,000 participants sent each socket 228 {@code transport_closed} in 10 s.
     */
    static final Set<String> PRESENCE_HINTS = Set.of("transport_connected", "transport_closed", "transport_failed",
            "transport_replaced", "participant_reconnecting");

    /** Whether a paged socket skips this volatile event: a presence hint about a participant it does not watch. */
    boolean skipsHint(Conn c, ObjectNode event) {
        if (!c.paged || !PRESENCE_HINTS.contains(event.path("type").asText())) {
            return false;
        }
        String about = event.path("detail").asText("");
        if (about.isEmpty()) {
            return false;
        }
        RosterTally t = loadedTally(c.meetingId);
        return t != null && !c.watch.wants(about, String.valueOf(c.participantId), t);
    }

    /**
     * Whether a paged socket skips this event (it goes into the next summary's range instead): a join or
     * departure of a participant it does not watch, or an event for another participant's eyes only.
     */
    boolean skips(Conn c, ControlEvent e) {
        if (!c.paged) {
            return false;
        }
        if (e.audience() != null) {
            return !e.audience().equals(c.participantId);
        }
        if (!RosterEvents.coalescible(e.type(), e.payload(), true)) {
            return false;
        }
        RosterTally t = loadedTally(c.meetingId);
        return t != null && !c.watch.wants(e.payload().path("participant_id").asText(), String.valueOf(c.participantId), t);
    }
}
