package dev.parley.controller.roster;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.config.ParleyConfig;
import dev.parley.controller.db.Db;
import dev.parley.controller.ownership.LeaderKey;
import dev.parley.platform.etcd.EtcdKeys;
import dev.parley.platform.etcd.ProcessLease;
import io.etcd.jetcd.Client;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Context;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Builds the roster read model ({@code roster_entries}, migration V6) from the committed participant events of
 * {@code outbox_events} — the stream the outbox relay publishes, kept in full (control events are trimmed, the outbox
 * is not), and whose participant events carry the whole public participant document
 * ({@code ParticipantService.participantJson}: id, display name, role, admission state, version, publish flags).
 * {@code meeting.ending} (ending a meeting sets every active participant to {@code left} without a participant event
 * each) is applied as that same change to the meeting's active entries.
 *
 * <p><b>Order.</b> A meeting's roster events are all written under its meeting row lock, so within a meeting their
 * {@code position} order is their commit order and whatever a statement sees of them is a prefix: the projector reads
 * them by position after the meeting's checkpoint. (Across meetings positions are not in commit order; nothing here
 * relies on a global position.)
 *
 * <p><b>Idempotence.</b> Each entry remembers the position of the last event applied to it and an event is applied
 * only to entries below its position (conditional upsert), so applying an event twice, or an older one after a newer
 * one, changes nothing; the checkpoint only moves forward. A meeting's catch-up runs in one transaction holding a
 * per-meeting advisory lock, so two projectors (two pods during a leader change, a rebuild and the background loop)
 * never interleave on one meeting.
 *
 * <p><b>Where it runs.</b> On the leader only ({@code /parley/v1/roster-projector/leader} under this process's lease,
 * as the outbox relay does): one poller per cluster instead of one scan of the meetings per pod every
 * {@value #POLL_MILLIS} ms. Safety does not depend on it (lock + conditional writes); a leader that dies is replaced
 * when its lease expires and the new one continues from the checkpoints.
 *
 * <p><b>Never authorization.</b> Nothing reads these tables to decide access; only the roster page reads them.
 */
@Context
@Singleton
public final class RosterProjector {
    private static final Logger LOG = LoggerFactory.getLogger(RosterProjector.class);
    static final String LEADER_KEY = EtcdKeys.ROOT + "/roster-projector/leader";
    static final long POLL_MILLIS = 150;
    /** Events read per statement (a background round reads one such batch; a full catch-up loops). */
    static final int EVENTS_PER_ROUND = 2000;
    /** Meetings caught up per round at most (the rest next round). */
    static final int MEETINGS_PER_ROUND = 500;
    /** How often a round looks at every meeting instead of only those with pending outbox rows. */
    static final long FULL_SCAN_MILLIS = 3000;
    /** First key of the two-key advisory lock ("ROST"), the second is derived from the meeting id. */
    static final int LOCK_CLASS = 0x524F5354;

    /** The outbox event types whose payload is the participant document, and the one meeting-wide change. */
    static final List<String> PARTICIPANT_TYPES = List.of("participant.joined", "participant.waiting",
            "participant.participant_admitted", "participant.participant_denied", "participant.participant_removed",
            "participant.role_changed", "participant.permission_changed", "participant.left");
    static final String MEETING_ENDING = "meeting.ending";
    private static final List<String> TYPES = java.util.stream.Stream.concat(PARTICIPANT_TYPES.stream(),
            java.util.stream.Stream.of(MEETING_ENDING)).toList();

    private final Db db;
    private final ParleyConfig cfg;
    private final LeaderKey leaderKey;
    private final Counter applied;
    private final Counter skipped;
    private final ScheduledExecutorService exec = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "roster-projector");
        t.setDaemon(true);
        return t;
    });
    /** {@link #EVENTS_PER_ROUND}; lower in tests to exercise rounds cut short. */
    private volatile int eventsPerRound = EVENTS_PER_ROUND;
    /** Tests: the background loop stands still (catch-ups on read, rebuilds and explicit calls still run). */
    private volatile boolean paused;
    private volatile long leaderCheckedAt;
    private volatile boolean leader;
    /** When the background loop last looked at every meeting (0: not yet). */
    private long fullScanAt;
    /**
     * Meetings the last round left behind: cut short by the per-round limit, or locked by another projector. The
     * next round takes them again; otherwise, once the relay has published their events, only the next full scan
     * (up to {@link #FULL_SCAN_MILLIS} later) would find them.
     */
    private final Set<UUID> revisit = java.util.concurrent.ConcurrentHashMap.newKeySet();

    public RosterProjector(Db db, ParleyConfig cfg, Client etcd, ProcessLease lease, MeterRegistry meters) {
        this.db = db;
        this.cfg = cfg;
        this.leaderKey = new LeaderKey(etcd, lease, LEADER_KEY, cfg.podName());
        this.applied = Counter.builder("parley_roster_projection_events_applied")
                .description("roster events applied to the read model (re-applied duplicates included)").register(meters);
        this.skipped = Counter.builder("parley_roster_projection_events_skipped")
                .description("roster events without a readable participant document (logged, not applied)").register(meters);
        Gauge.builder("parley_roster_projection_lag", db, RosterProjector::lag)
                .description("control events committed but not yet examined by the roster projection (all meetings)")
                .baseUnit("events").register(meters);
        exec.scheduleWithFixedDelay(this::round, POLL_MILLIS, POLL_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Leader of the projection: checked against etcd at most once a second (a stale answer is safe, see above). */
    private boolean leader() {
        long now = System.nanoTime();
        if (now - leaderCheckedAt < 1_000_000_000L && leaderCheckedAt != 0) {
            return leader;
        }
        leader = electLeader();
        leaderCheckedAt = now;
        return leader;
    }

    private boolean electLeader() {
        return leaderKey.held();
    }

    void round() {
        try {
            if (!paused && leader()) {
                long now = System.nanoTime();
                boolean full = fullScanAt == 0 || now - fullScanAt >= FULL_SCAN_MILLIS * 1_000_000L;
                List<UUID> candidates = behind(full);
                if (!revisit.isEmpty()) {
                    Set<UUID> all = new java.util.LinkedHashSet<>(candidates);
                    all.addAll(revisit);
                    candidates = new ArrayList<>(all);
                    revisit.clear();
                }
                catchUpMeetings(candidates, false);
                if (full) {
                    fullScanAt = now;
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("roster projection round failed: {}", e.toString());
        }
    }

    /**
     * Meetings whose control cursor moved since their checkpoint (they may have roster events to apply). Every roster
     * event is committed with a control-log append, which advances {@code control_seq} (a new owner resets it with a
     * new {@code controller_epoch}), so an unchanged cursor means nothing new. A checkpoint without a cursor is a
     * catch-up cut short by the per-round limit.
     */
    private static final String IS_BEHIND = "((k.meeting_id IS NOT NULL AND k.seen_epoch IS NULL) "
            + "OR (m.controller_epoch, m.control_seq) "
            + "IS DISTINCT FROM (COALESCE(k.seen_epoch, m.controller_epoch), COALESCE(k.seen_seq, 0)))";
    /** Every meeting that is behind: a scan of {@code meetings} (≈ 50 ms at 20 000 meetings), so only now and then. */
    private static final String BEHIND = "SELECT m.meeting_id FROM meetings m "
            + "LEFT JOIN roster_checkpoints k ON k.meeting_id = m.meeting_id WHERE " + IS_BEHIND
            + " LIMIT " + MEETINGS_PER_ROUND;
    /**
     * The usual round: the meetings of the newest pending (not yet published) outbox rows, through the relay's own
     * {@code outbox_pending} index — a new roster event is pending for at least until the relay's next pass. An event
     * the relay published before a round saw it is found by the next full scan.
     */
    private static final String RECENTLY_BEHIND = "SELECT m.meeting_id FROM meetings m "
            + "LEFT JOIN roster_checkpoints k ON k.meeting_id = m.meeting_id WHERE " + IS_BEHIND
            + " AND m.meeting_id = ANY (ARRAY(SELECT DISTINCT meeting_id FROM (SELECT meeting_id FROM outbox_events "
            + "WHERE published_at IS NULL AND dead_lettered_at IS NULL ORDER BY position DESC LIMIT 2000) p)) "
            + "LIMIT " + MEETINGS_PER_ROUND;

    /** {@link #catchUpMeetings} of every meeting that is behind (a full scan); returns the number of events applied. */
    public int catchUpAll(boolean wait) {
        return catchUpMeetings(behind(true), wait);
    }

    /** The meetings that are behind: all of them ({@code full}) or those with pending outbox rows. */
    private List<UUID> behind(boolean full) {
        return db.read(c -> {
            List<UUID> out = new ArrayList<>();
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(full ? BEHIND : RECENTLY_BEHIND)) {
                while (rs.next()) {
                    out.add(rs.getObject(1, UUID.class));
                }
            }
            return out;
        });
    }

    /**
     * Catches {@code behind} up; returns the number of events applied. The background round does them together: ONE
     * transaction takes the advisory locks it can get (a meeting another projector holds waits for the next round),
     * reads their cursors, their events (at most {@value #EVENTS_PER_ROUND}) and writes entries and checkpoints — a
     * handful of round trips per round, however many meetings moved. {@code wait} (tests): one transaction per
     * meeting, waiting for each meeting's lock, until every one is complete.
     */
    private int catchUpMeetings(List<UUID> behind, boolean wait) {
        if (behind.isEmpty()) {
            return 0;
        }
        if (wait) {
            int n = 0;
            for (UUID m : behind) {
                n += catchUp(m, true);
            }
            return n;
        }
        Set<UUID> leftBehind = new HashSet<>();
        int n = db.tx(c -> {
            leftBehind.clear(); // a retried transaction starts over
            List<UUID> locked = tryLock(c, behind);
            leftBehind.addAll(behind);
            leftBehind.removeAll(locked); // another projector holds these now
            return project(c, locked, false, leftBehind);
        });
        revisit.addAll(leftBehind);
        return n;
    }

    /**
     * Applies a meeting's roster events after its checkpoint, all of them, in one transaction under the meeting's
     * advisory lock. Returns the number of events applied, or -1 when {@code wait} is false and another projector
     * holds the lock.
     */
    public int catchUp(UUID meetingId, boolean wait) {
        return db.tx(c -> {
            if (!lock(c, meetingId, wait)) {
                return -1;
            }
            return project(c, List.of(meetingId), true, null);
        });
    }

    /**
     * Full rebuild of one meeting: its entries and checkpoint are deleted and every retained roster event is applied
     * again, in one transaction (readers see the old page until it commits). Returns the number of events applied.
     */
    public int rebuild(UUID meetingId) {
        return db.tx(c -> {
            lock(c, meetingId, true);
            for (String sql : new String[]{"DELETE FROM roster_entries WHERE meeting_id = ?",
                    "DELETE FROM roster_checkpoints WHERE meeting_id = ?"}) {
                try (PreparedStatement ps = c.prepareStatement(sql)) {
                    ps.setObject(1, meetingId);
                    ps.executeUpdate();
                }
            }
            return project(c, List.of(meetingId), true, null);
        });
    }

    /** Result of {@link #rebuildAll}. */
    public record Rebuilt(int meetings, long events) {
    }

    /** {@link #rebuild} of every meeting (one transaction per meeting), including entries whose meeting is gone. */
    public Rebuilt rebuildAll() {
        List<UUID> all = db.read(c -> {
            List<UUID> out = new ArrayList<>();
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                    "SELECT meeting_id FROM meetings UNION SELECT meeting_id FROM roster_checkpoints "
                            + "UNION SELECT DISTINCT meeting_id FROM roster_entries")) {
                while (rs.next()) {
                    out.add(rs.getObject(1, UUID.class));
                }
            }
            return out;
        });
        long events = 0;
        for (UUID m : all) {
            events += rebuild(m);
        }
        return new Rebuilt(all.size(), events);
    }

    private static boolean lock(Connection c, UUID meetingId, boolean wait) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(wait ? "SELECT true FROM pg_advisory_xact_lock(?, ?)"
                : "SELECT pg_try_advisory_xact_lock(?, ?)")) {
            ps.setInt(1, LOCK_CLASS);
            ps.setInt(2, meetingId.hashCode());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return wait || rs.getBoolean(1);
            }
        }
    }

    /** The meetings whose advisory lock this transaction got (one statement; never waits). */
    private static List<UUID> tryLock(Connection c, List<UUID> meetings) throws SQLException {
        Integer[] keys = new Integer[meetings.size()];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = meetings.get(i).hashCode();
        }
        List<UUID> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT x.id FROM unnest(?::uuid[], ?::int4[]) AS x(id, k) "
                + "WHERE pg_try_advisory_xact_lock(?, x.k)")) {
            ps.setArray(1, c.createArrayOf("uuid", meetings.toArray()));
            ps.setArray(2, c.createArrayOf("int4", keys));
            ps.setInt(3, LOCK_CLASS);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getObject(1, UUID.class));
                }
            }
        }
        return out;
    }

    private record Head(long epoch, long seq) {
    }

    private record Event(UUID meetingId, long position, UUID eventId, String type, String payload) {
    }

    /**
     * Catch-up of {@code meetings} inside the caller's transaction, which holds their advisory locks. The meetings'
     * cursors are read first: the events read afterwards include at least every event up to them. {@code complete}:
     * read until every meeting is caught up; otherwise stop after {@value #EVENTS_PER_ROUND} events (a meeting cut
     * short keeps its old cursor, so the next round comes back to it).
     */
    private int project(Connection c, List<UUID> meetings, boolean complete, Set<UUID> cutShort) throws SQLException {
        if (meetings.isEmpty()) {
            return 0;
        }
        Map<UUID, Head> heads = new HashMap<>();
        Map<UUID, Long> last = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT m.meeting_id, m.controller_epoch, m.control_seq, "
                + "COALESCE(k.last_position, 0) FROM meetings m LEFT JOIN roster_checkpoints k "
                + "ON k.meeting_id = m.meeting_id WHERE m.meeting_id = ANY (?)")) {
            ps.setArray(1, c.createArrayOf("uuid", meetings.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    UUID m = rs.getObject(1, UUID.class);
                    heads.put(m, new Head(rs.getLong(2), rs.getLong(3)));
                    last.put(m, rs.getLong(4));
                }
            }
        }
        int limit = eventsPerRound;
        List<UUID> pending = new ArrayList<>(heads.keySet());
        Set<UUID> cut = new HashSet<>();
        int n = 0;
        while (!pending.isEmpty()) {
            List<Event> events = read(c, pending, last, limit);
            apply(c, events);
            n += events.size();
            for (Event e : events) {
                last.put(e.meetingId(), e.position());
            }
            if (events.size() < limit) {
                break;
            }
            // cut short: meetings (in id order) after the last one read are unknown, the last one may be partial
            UUID lastMeeting = events.get(events.size() - 1).meetingId();
            List<UUID> rest = new ArrayList<>();
            for (UUID m : pending) {
                if (pgCompare(m, lastMeeting) >= 0) {
                    rest.add(m);
                }
            }
            if (!complete) {
                cut.addAll(rest);
                break;
            }
            pending = rest;
        }
        writeCheckpoints(c, heads, last, cut);
        if (cutShort != null) {
            cutShort.addAll(cut);
        }
        applied.increment(n);
        return n;
    }

    /** Stops or restarts the background loop (tests). */
    void pause(boolean pause) {
        paused = pause;
    }

    /** Events read per statement from now on (tests: small values cut rounds short). */
    void eventsPerRound(int n) {
        eventsPerRound = n;
    }

    /** PostgreSQL's uuid order (its 16 bytes, unsigned), which is not {@link UUID#compareTo} (signed longs). */
    static int pgCompare(UUID a, UUID b) {
        int hi = Long.compareUnsigned(a.getMostSignificantBits(), b.getMostSignificantBits());
        return hi != 0 ? hi : Long.compareUnsigned(a.getLeastSignificantBits(), b.getLeastSignificantBits());
    }

    /** Events after each meeting's position in {@code after}, by meeting then position; at most {@code limit}. */
    private static List<Event> read(Connection c, List<UUID> meetings, Map<UUID, Long> after, int limit)
            throws SQLException {
        List<Event> out = new ArrayList<>();
        Long[] positions = new Long[meetings.size()];
        for (int i = 0; i < positions.length; i++) {
            positions[i] = after.get(meetings.get(i));
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT o.meeting_id, o.position, o.event_id, o.event_type, "
                + "o.payload::text FROM unnest(?::uuid[], ?::int8[]) AS f(id, after) "
                + "JOIN outbox_events o ON o.meeting_id = f.id AND o.event_type = ANY (?) AND o.position > f.after "
                + "ORDER BY o.meeting_id, o.position LIMIT " + limit)) {
            ps.setArray(1, c.createArrayOf("uuid", meetings.toArray()));
            ps.setArray(2, c.createArrayOf("int8", positions));
            ps.setArray(3, c.createArrayOf("text", TYPES.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Event(rs.getObject(1, UUID.class), rs.getLong(2), rs.getObject(3, UUID.class),
                            rs.getString(4), rs.getString(5)));
                }
            }
        }
        return out;
    }

    /**
     * One statement for all the meetings' checkpoints: the last position applied (never lowered) and the cursor read
     * at the start (never lowered; left as it was for a meeting cut short).
     */
    private static void writeCheckpoints(Connection c, Map<UUID, Head> heads, Map<UUID, Long> last, Set<UUID> cut)
            throws SQLException {
        int size = heads.size();
        UUID[] ids = new UUID[size];
        Long[] positions = new Long[size];
        Long[] epochs = new Long[size];
        Long[] seqs = new Long[size];
        int i = 0;
        for (Map.Entry<UUID, Head> h : heads.entrySet()) {
            boolean done = !cut.contains(h.getKey());
            ids[i] = h.getKey();
            positions[i] = last.get(h.getKey());
            epochs[i] = done ? h.getValue().epoch() : null;
            seqs[i] = done ? h.getValue().seq() : null;
            i++;
        }
        String newer = "(k.seen_epoch IS NULL OR (EXCLUDED.seen_epoch, EXCLUDED.seen_seq) > (k.seen_epoch, k.seen_seq))";
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO roster_checkpoints AS k (meeting_id, last_position, "
                + "seen_epoch, seen_seq) SELECT * FROM unnest(?::uuid[], ?::int8[], ?::int8[], ?::int8[]) "
                + "ON CONFLICT (meeting_id) DO UPDATE SET "
                + "last_position = GREATEST(k.last_position, EXCLUDED.last_position), "
                + "seen_epoch = CASE WHEN EXCLUDED.seen_epoch IS NOT NULL AND " + newer
                + " THEN EXCLUDED.seen_epoch ELSE k.seen_epoch END, "
                + "seen_seq = CASE WHEN EXCLUDED.seen_epoch IS NOT NULL AND " + newer
                + " THEN EXCLUDED.seen_seq ELSE k.seen_seq END, updated_at = now()")) {
            ps.setArray(1, c.createArrayOf("uuid", ids));
            ps.setArray(2, c.createArrayOf("int8", positions));
            ps.setArray(3, c.createArrayOf("int8", epochs));
            ps.setArray(4, c.createArrayOf("int8", seqs));
            ps.executeUpdate();
        }
    }

    /** A participant event: the entry becomes the event's participant document, unless it is at a later position. */
    private static final String UPSERT = "INSERT INTO roster_entries AS r (meeting_id, participant_id, display_name, role, "
            + "admission_state, participant_version, audio_publish, video_publish, screen_publish, last_position, "
            + "last_event_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (meeting_id, participant_id) DO UPDATE SET "
            + "display_name = EXCLUDED.display_name, role = EXCLUDED.role, admission_state = EXCLUDED.admission_state, "
            + "participant_version = EXCLUDED.participant_version, audio_publish = EXCLUDED.audio_publish, "
            + "video_publish = EXCLUDED.video_publish, screen_publish = EXCLUDED.screen_publish, "
            + "last_position = EXCLUDED.last_position, last_event_id = EXCLUDED.last_event_id, updated_at = now() "
            + "WHERE r.last_position < EXCLUDED.last_position";

    /**
     * {@code meeting.ending}: what ending does to every waiting/admitted participant (CommandService.endMeeting: left,
     * no publishing, a host becomes attendee, one new version), to entries below the event's position.
     */
    private static final String ENDING = "UPDATE roster_entries SET admission_state = 'left', audio_publish = false, "
            + "video_publish = false, screen_publish = false, role = CASE WHEN role = 'host' THEN 'attendee' ELSE role END, "
            + "participant_version = participant_version + 1, last_position = ?, last_event_id = ?, updated_at = now() "
            + "WHERE meeting_id = ? AND admission_state IN ('waiting','admitted') AND last_position < ?";

    private void apply(Connection c, List<Event> events) throws SQLException {
        if (events.isEmpty()) {
            return;
        }
        try (PreparedStatement upsert = c.prepareStatement(UPSERT); PreparedStatement ending = c.prepareStatement(ENDING)) {
            for (Event e : events) {
                if (MEETING_ENDING.equals(e.type())) {
                    // statements run in event order: flush the participant events before it
                    upsert.executeBatch();
                    ending.setLong(1, e.position());
                    ending.setObject(2, e.eventId());
                    ending.setObject(3, e.meetingId());
                    ending.setLong(4, e.position());
                    ending.executeUpdate();
                    continue;
                }
                JsonNode p = document(e);
                if (p == null) {
                    skipped.increment();
                    LOG.warn("roster projection: event {} ({}) has no participant document; not applied", e.eventId(), e.type());
                    continue;
                }
                JsonNode pub = p.get("publish");
                upsert.setObject(1, e.meetingId());
                upsert.setObject(2, UUID.fromString(p.get("participant_id").asText()));
                upsert.setString(3, p.get("display_name").asText());
                upsert.setString(4, p.get("role").asText());
                upsert.setString(5, p.get("admission_state").asText());
                upsert.setLong(6, p.get("participant_version").asLong());
                upsert.setBoolean(7, pub.get("audio").asBoolean());
                upsert.setBoolean(8, pub.get("video").asBoolean());
                upsert.setBoolean(9, pub.get("screen").asBoolean());
                upsert.setLong(10, e.position());
                upsert.setObject(11, e.eventId());
                upsert.addBatch();
            }
            upsert.executeBatch();
        }
    }

    /** The event's participant document, or null when a field the roster needs is missing or malformed. */
    private static JsonNode document(Event e) {
        try {
            JsonNode p = JsonBody.JSON.readTree(e.payload());
            JsonNode pub = p.path("publish");
            for (String f : new String[]{"participant_id", "display_name", "role", "admission_state"}) {
                if (!p.path(f).isTextual()) {
                    return null;
                }
            }
            UUID.fromString(p.get("participant_id").asText());
            if (!p.path("participant_version").canConvertToLong() || !p.path("participant_version").isIntegralNumber()
                    || !pub.path("audio").isBoolean() || !pub.path("video").isBoolean() || !pub.path("screen").isBoolean()) {
                return null;
            }
            return p;
        } catch (Exception ex) {
            return null;
        }
    }

    /** {@code roster_projection_lag}: control events committed but not yet examined, summed over meetings. */
    static double lag(Db db) {
        try {
            return db.read(c -> {
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                        "SELECT COALESCE(sum(CASE WHEN k.seen_epoch IS NULL OR k.seen_epoch <> m.controller_epoch "
                                + "THEN m.control_seq ELSE m.control_seq - k.seen_seq END), 0) FROM meetings m "
                                + "LEFT JOIN roster_checkpoints k ON k.meeting_id = m.meeting_id "
                                + "WHERE (k.meeting_id IS NOT NULL AND k.seen_epoch IS NULL) "
                                + "OR (m.controller_epoch, m.control_seq) IS DISTINCT FROM "
                                + "(COALESCE(k.seen_epoch, m.controller_epoch), COALESCE(k.seen_seq, 0))")) {
                    return rs.next() ? rs.getDouble(1) : 0.0;
                }
            });
        } catch (RuntimeException e) {
            return Double.NaN; // database unavailable: the health endpoint says so
        }
    }

    @PreDestroy
    void stop() {
        exec.shutdownNow();
    }
}
