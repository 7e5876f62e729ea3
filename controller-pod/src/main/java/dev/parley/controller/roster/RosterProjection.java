package dev.parley.controller.roster;

import io.micrometer.core.instrument.Counter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The catch-up of a set of meetings inside the caller's transaction, which holds their advisory locks: their
 * cursors are read first, then their roster events after each checkpoint in batches, each turned into a
 * {@link RosterChange} and written (conditional, so re-applying changes nothing), then the checkpoints.
 */
final class RosterProjection {
    private static final Logger LOG = LoggerFactory.getLogger(RosterProjection.class);

    private final Counter applied;
    private final Counter skipped;

    RosterProjection(Counter applied, Counter skipped) {
        this.applied = applied;
        this.skipped = skipped;
    }

    /**
     * Catch-up of {@code meetings}; returns the number of events applied. The events read after the cursors include
     * at least every event up to them. {@code complete}: read until every meeting is caught up; otherwise stop after
     * {@code limit} events (a meeting cut short keeps its old cursor, so the next round comes back to it; it is
     * added to {@code cutShort} when that is not null).
     */
    int project(Connection c, List<UUID> meetings, boolean complete, int limit, Set<UUID> cutShort) throws SQLException {
        if (meetings.isEmpty()) {
            return 0;
        }
        Map<UUID, Long> last = new HashMap<>();
        Map<UUID, RosterStore.Head> heads = RosterStore.heads(c, meetings, last);
        List<UUID> pending = new ArrayList<>(heads.keySet());
        Set<UUID> cut = new HashSet<>();
        int n = 0;
        while (!pending.isEmpty()) {
            List<RosterEvent> events = RosterStore.events(c, pending, last, limit);
            RosterStore.write(c, changes(events));
            n += events.size();
            for (RosterEvent e : events) {
                last.put(e.meetingId(), e.position());
            }
            if (events.size() < limit) {
                break;
            }
            List<UUID> rest = notPast(pending, events.get(events.size() - 1).meetingId());
            if (!complete) {
                cut.addAll(rest);
                break;
            }
            pending = rest;
        }
        RosterStore.writeCheckpoints(c, heads, last, cut);
        if (cutShort != null) {
            cutShort.addAll(cut);
        }
        applied.increment(n);
        return n;
    }

    /** The changes of {@code events}, in order; an event without a readable document is counted and left out. */
    private List<RosterChange> changes(List<RosterEvent> events) {
        List<RosterChange> out = new ArrayList<>(events.size());
        for (RosterEvent e : events) {
            RosterChange change = RosterChange.of(e);
            if (change == null) {
                skipped.increment();
                LOG.warn("roster projection: event {} ({}) has no participant document; not applied", e.eventId(), e.type());
                continue;
            }
            out.add(change);
        }
        return out;
    }

    /**
     * After a batch cut short by the limit (events come by meeting id, then position): the meetings of
     * {@code pending} not known to be complete, i.e. the last one read (it may be partial) and those after it.
     */
    static List<UUID> notPast(List<UUID> pending, UUID lastMeeting) {
        List<UUID> rest = new ArrayList<>();
        for (UUID m : pending) {
            if (pgCompare(m, lastMeeting) >= 0) {
                rest.add(m);
            }
        }
        return rest;
    }

    /** PostgreSQL's uuid order (its 16 bytes, unsigned), which is not {@link UUID#compareTo} (signed longs). */
    static int pgCompare(UUID a, UUID b) {
        int hi = Long.compareUnsigned(a.getMostSignificantBits(), b.getMostSignificantBits());
        return hi != 0 ? hi : Long.compareUnsigned(a.getLeastSignificantBits(), b.getLeastSignificantBits());
    }
}
