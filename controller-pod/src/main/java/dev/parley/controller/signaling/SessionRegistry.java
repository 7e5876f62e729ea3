package dev.parley.controller.signaling;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.control.SessionHub;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.control.ControlEvent;
import dev.parley.controller.control.ControlLog;
import dev.parley.controller.control.Cursor;
import dev.parley.controller.db.Db;
import dev.parley.controller.meeting.MeetingRow;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.websocket.CloseReason;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Live signaling sockets per meeting. Reliable control events reach every joined socket exactly in
 * cursor order: a socket that would see a gap (commits can finish out of order across threads) first
 * reads the missing events from the control log.
 */
@Singleton
public class SessionRegistry implements SessionHub {
    private static final Logger LOG = LoggerFactory.getLogger(SessionRegistry.class);

    private final Map<UUID, Set<Conn>> byMeeting = new ConcurrentHashMap<>();
    /** Meeting → registered sockets accepted here without owning the meeting (they wait for the fan-out). */
    private final Map<UUID, Integer> remoteSessions = new ConcurrentHashMap<>();
    private final Db db;
    private final ControlLog log;

    /**
     * Owner's view, from presence notices: meeting → other pod (internal URL) → participants with a live socket
     * there. Sets, not counts: a repeated notice changes nothing, and a pod says "closed" only for its last socket
     * of a participant.
     */
    private final Map<UUID, Map<String, Set<UUID>>> remotePods = new ConcurrentHashMap<>();
    /** Pod URL → its volatile events in order. */
    private final Map<String, SerialExecutor> toPod = new ConcurrentHashMap<>();
    private final java.util.concurrent.ExecutorService podSenders = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor();
    private final dev.parley.controller.peer.PodLink link;

    /** Joins and departures held for one batch window and sent as one {@code roster_delta}. */
    private final RosterBatcher roster;
    private final io.micrometer.core.instrument.Counter deltas;
    private final io.micrometer.core.instrument.Counter deltaEvents;
    private final VolatileSends volatileSends;

    /** The paged roster: tallies, who is paged, summaries. */
    private final PagedRoster paged;

    public SessionRegistry(Db db, ControlLog log, MeterRegistry meters, dev.parley.controller.peer.PodLink link,
                           SignalingExecutors executors, PagedRoster paged) {
        this.db = db;
        this.paged = paged;
        this.log = log;
        this.link = link;
        this.roster = new RosterBatcher(executors.timers, new RosterBatcher.Sink() {
            @Override
            public void run(UUID meetingId, List<ControlEvent> run,
                            Map<String, dev.parley.controller.coalesce.RosterChange> changes, String delta) {
                deliverRun(meetingId, run, changes, delta);
            }

            @Override
            public void events(UUID meetingId, List<ControlEvent> events) {
                deliverToAll(meetingId, events);
            }
        });
        deltas = meters.counter("parley_roster_deltas_total");
        deltaEvents = meters.counter("parley_roster_delta_events_total");
        volatileSends = new VolatileSends(meters);
        meters.gauge("parley_active_connections", byMeeting, m -> m.values().stream().mapToInt(Set::size).sum());
    }

    void add(Conn c) {
        if (byMeeting.computeIfAbsent(c.meetingId, k -> ConcurrentHashMap.newKeySet()).add(c) && c.remote) {
            remoteSessions.merge(c.meetingId, 1, Integer::sum);
        }
    }

    boolean remove(Conn c) {
        if (c.meetingId == null) {
            return false;
        }
        Set<Conn> s = byMeeting.get(c.meetingId);
        boolean removed = s != null && s.remove(c);
        if (removed && c.remote) {
            remoteGone(c.meetingId);
        }
        return removed;
    }

    boolean hasOtherSocket(UUID meetingId, UUID participantId, Conn except) {
        Set<Conn> s = byMeeting.get(meetingId);
        return s != null && s.stream().anyMatch(c -> c != except && participantId.equals(c.participantId));
    }

    @Override
    public void publish(UUID meetingId, List<ControlEvent> events) {
        if (events.isEmpty() || !byMeeting.containsKey(meetingId)) {
            return;
        }
        paged.observe(meetingId, events);
        roster.publish(meetingId, events);
    }

    private void deliverToAll(UUID meetingId, List<ControlEvent> events) {
        Set<Conn> s = byMeeting.get(meetingId);
        if (s == null) {
            return;
        }
        for (Conn c : s) {
            c.tasks.execute(() -> deliver(c, events));
        }
    }

    /**
     * A run of consecutive joins/departures: a socket exactly at its start gets the one delta (the same text for
     * every socket) and moves to its end; any other socket gets the events themselves (gaps read from the log).
     * A paged socket at or inside the run gets one {@code roster_summary} for it instead: the counts and only the
     * changes it watches (the same text for every socket that watches none of them).
     */
    private void deliverRun(UUID meetingId, List<ControlEvent> run,
                            Map<String, dev.parley.controller.coalesce.RosterChange> changes, String delta) {
        Set<Conn> s = byMeeting.get(meetingId);
        if (s == null) {
            return;
        }
        deltas.increment();
        deltaEvents.increment(run.size());
        ControlEvent first = run.get(0);
        long lastSeq = run.get(run.size() - 1).seq();
        String after = first.epoch() + "." + (first.seq() - 1);
        String cursor = run.get(run.size() - 1).cursor();
        dev.parley.controller.coalesce.RosterTally tally = paged.loadedTally(meetingId);
        String[] unwatched = new String[1]; // the summary without changes, encoded once for the run
        for (Conn c : s) {
            c.tasks.execute(() -> {
                if (paged.paged(c, tally) && tally != null && c.epoch == first.epoch()
                        && c.lastSeq >= first.seq() - 1 && c.lastSeq < lastSeq) {
                    flushSkipped(c);
                    var mine = c.watch.filter(changes, String.valueOf(c.participantId), tally);
                    String text;
                    if (mine.isEmpty()) {
                        synchronized (unwatched) {
                            if (unwatched[0] == null) {
                                unwatched[0] = paged.summary(c, after, cursor, mine);
                            }
                            text = unwatched[0];
                        }
                    } else {
                        text = paged.summary(c, after, cursor, mine);
                    }
                    c.lastSeq = lastSeq;
                    sendText(c, text);
                } else if (!c.paged && c.epoch == first.epoch() && c.lastSeq == first.seq() - 1) {
                    c.lastSeq = lastSeq;
                    sendText(c, delta);
                } else {
                    deliver(c, run);
                }
            });
        }
    }

    /** A paged socket's skipped events as one {@code roster_summary} for their range, before anything else. */
    private void flushSkipped(Conn c) {
        if (c.skipAfter < 0) {
            return;
        }
        String text = paged.summary(c, c.epoch + "." + c.skipAfter, c.epoch + "." + c.lastSeq, Map.of());
        c.skipAfter = -1;
        sendText(c, text);
    }

    /** {@code roster_page} from a socket (on its executor): watch these participants, answer with the counts. */
    void rosterPage(Conn c, com.fasterxml.jackson.databind.JsonNode msg) {
        sendText(c, paged.pageRequested(c, msg));
    }

    /**
     * Committed events of a meeting that reached this pod through the cross-pod fan-out ({@code head}: the
     * meeting's sequence when they were read; {@code events} may be empty or partial). Every local socket of the
     * meeting gets what it has not seen, in order and once: duplicates are dropped by seq, a gap (or a head
     * beyond what the batch carries) is filled from the control log, an older epoch is ignored and a newer one
     * means {@code snapshot_required}.
     */
    public void fanIn(UUID meetingId, long epoch, long head, List<ControlEvent> events) {
        Set<Conn> s = byMeeting.get(meetingId);
        if (s == null) {
            return;
        }
        paged.observe(meetingId, events);
        for (Conn c : s) {
            c.tasks.execute(() -> {
                if (!c.joined() || epoch < c.epoch) {
                    return;
                }
                if (!events.isEmpty()) {
                    deliver(c, events);
                }
                if (epoch == c.epoch && c.lastSeq < head) {
                    catchUp(c);
                } else if (epoch > c.epoch) {
                    notifyEpochChanged(c, epoch);
                }
            });
        }
    }

    /** Whether a joined socket on this pod was accepted without owning its meeting. */
    public boolean hasRemoteSessions() {
        return !remoteSessions.isEmpty();
    }

    /** The meetings with a socket here that waits for another pod's events (the fan-out's interest). */
    public Set<UUID> remoteMeetings() {
        return Set.copyOf(remoteSessions.keySet());
    }

    private void remoteGone(UUID meetingId) {
        remoteSessions.computeIfPresent(meetingId, (k, n) -> n <= 1 ? null : n - 1);
    }

    /** One snapshot_required per newer epoch (every later event of that epoch would say the same). */
    private void notifyEpochChanged(Conn c, long newerEpoch) {
        if (newerEpoch > c.snapshotRequiredForEpoch) {
            c.snapshotRequiredForEpoch = newerEpoch;
            sendSnapshotRequired(c, "controller epoch changed");
        }
    }

    /** Sends events after the socket's last seq, filling gaps from the log. Runs on the socket's serial executor. */
    void deliver(Conn c, List<ControlEvent> events) {
        for (ControlEvent e : events) {
            if (e.epoch() < c.epoch) {
                continue; // a late copy from an older epoch (fan-out redelivery): nothing new for this socket
            }
            if (e.epoch() > c.epoch) {
                notifyEpochChanged(c, e.epoch());
                return;
            }
            if (e.seq() <= c.lastSeq) {
                continue;
            }
            if (e.seq() > c.lastSeq + 1) {
                catchUp(c);
                if (e.seq() <= c.lastSeq) {
                    continue;
                }
            }
            send(c, e);
        }
        flushSkipped(c);
    }

    /** Reads and sends every event after the socket's cursor; false when it can't be done exactly. */
    boolean catchUp(Conn c) {
        long[] upTo = new long[1];
        List<ControlEvent> missed = db.readSnapshot(x -> {
            MeetingRow m = MeetingRow.load(x, c.meetingId, false);
            upTo[0] = m.controlSeq();
            return log.after(x, c.meetingId, new Cursor(c.epoch, c.lastSeq), m.controllerEpoch(), m.controlSeq(),
                    c.participantId);
        });
        if (missed == null) {
            sendSnapshotRequired(c, "events beyond retention or epoch changed");
            return false;
        }
        for (ControlEvent e : missed) {
            if (e.seq() > c.lastSeq) {
                send(c, e);
            }
        }
        // the replay was complete up to the sequence read with it (events for other audiences included)
        if (c.paged && upTo[0] > c.lastSeq && c.skipAfter < 0) {
            c.skipAfter = c.lastSeq; // a paged client is told the range it will not see
        }
        c.lastSeq = Math.max(c.lastSeq, upTo[0]);
        flushSkipped(c);
        return true;
    }

    private void send(Conn c, ControlEvent e) {
        if (paged.skips(c, e)) {
            if (c.skipAfter < 0) {
                c.skipAfter = c.lastSeq;
            }
            c.lastSeq = e.seq();
            return;
        }
        flushSkipped(c);
        c.lastSeq = e.seq();
        if (e.audience() != null && !e.audience().equals(c.participantId)) {
            return;
        }
        ObjectNode msg = JsonBody.obj();
        msg.put("type", "event");
        msg.put("cursor", e.cursor());
        ObjectNode ev = msg.putObject("event");
        ev.put("type", e.type());
        ev.put("event_id", e.eventId().toString());
        ev.setAll(e.payload());
        sendRaw(c, msg);
    }

    void sendSnapshotRequired(Conn c, String why) {
        ObjectNode msg = JsonBody.obj();
        msg.put("type", "snapshot_required");
        msg.put("reason", why);
        sendRaw(c, msg);
    }

    void sendRaw(Conn c, ObjectNode msg) {
        sendText(c, msg.toString());
    }

    private void sendText(Conn c, String text) {
        if (c.session.isOpen()) {
            try {
                c.session.sendSync(text);
            } catch (Exception ex) { // a closed channel surfaces as a sneaky-thrown checked exception
                LOG.debug("socket send failed: {}", ex.toString());
            }
        }
    }

    @Override
    public void volatileMessage(UUID meetingId, String type, String detail) {
        ObjectNode ev = JsonBody.obj();
        ev.put("type", type);
        ev.put("detail", detail);
        volatileEventTo(meetingId, null, ev);
    }

    @Override
    public void volatileEvent(UUID meetingId, ObjectNode event) {
        volatileEventTo(meetingId, null, event);
    }

    @Override
    public void volatileEventTo(UUID meetingId, String participantId, ObjectNode event) {
        Map<String, Set<UUID>> pods = remotePods.get(meetingId);
        if (pods != null && !pods.isEmpty()) {
            ObjectNode body = JsonBody.obj();
            body.put("meeting_id", meetingId.toString());
            if (participantId != null) {
                body.put("participant_id", participantId);
            }
            body.set("event", event);
            String text = body.toString();
            for (String pod : pods.keySet()) {
                toPod.computeIfAbsent(pod, k -> new SerialExecutor(podSenders)).execute(() ->
                        link.post(pod, PresenceController.VOLATILE_PATH, text, java.time.Duration.ofSeconds(2)));
            }
        }
        localVolatile(meetingId, participantId, event);
    }

    /** Another pod has a live socket of the participant (an owned meeting). */
    void remoteOpened(UUID meetingId, String podUrl, UUID participantId) {
        remotePods.compute(meetingId, (k, pods) -> {
            Map<String, Set<UUID>> m = pods == null ? new ConcurrentHashMap<>() : pods;
            m.computeIfAbsent(podUrl, x -> ConcurrentHashMap.newKeySet()).add(participantId);
            return m;
        });
    }

    /** That pod's last socket of the participant closed ({@code podUrl} null: on every pod, the participant left). */
    void remoteClosed(UUID meetingId, String podUrl, UUID participantId) {
        remotePods.computeIfPresent(meetingId, (k, pods) -> {
            for (Map.Entry<String, Set<UUID>> e : pods.entrySet()) {
                if (podUrl == null || podUrl.equals(e.getKey())) {
                    e.getValue().remove(participantId);
                }
            }
            pods.values().removeIf(Set::isEmpty);
            return pods.isEmpty() ? null : pods;
        });
    }

    /** Whether another pod announced a live socket of the participant. */
    boolean hasRemoteSocket(UUID meetingId, UUID participantId) {
        Map<String, Set<UUID>> pods = remotePods.get(meetingId);
        return pods != null && pods.values().stream().anyMatch(ps -> ps.contains(participantId));
    }

    /** A volatile event for this pod's sockets of the meeting only ({@link VolatileSends}: never behind reliable ones). */
    void localVolatile(UUID meetingId, String participantId, ObjectNode event) {
        Set<Conn> s = byMeeting.get(meetingId);
        if (s != null) {
            volatileSends.send(s, participantId, event, c -> paged.skipsHint(c, event));
        }
    }

    @Override
    public void closeMeeting(UUID meetingId) {
        Map<String, Set<UUID>> pods = remotePods.remove(meetingId);
        if (pods != null) {
            // the pods with sockets of the meeting close theirs too (after sending them what they lack)
            ObjectNode body = JsonBody.obj();
            body.put("meeting_id", meetingId.toString());
            String text = body.toString();
            for (String pod : pods.keySet()) {
                toPod.computeIfAbsent(pod, k -> new SerialExecutor(podSenders)).execute(() ->
                        link.post(pod, PresenceController.ENDED_PATH, text, java.time.Duration.ofSeconds(2)));
            }
        }
        close(meetingId, false);
    }

    /**
     * The owner closed the meeting's sockets (it ended): this pod's sockets of it first read from the log what the
     * fan-out has not brought yet (the last events), then are closed.
     */
    void meetingEnded(UUID meetingId) {
        close(meetingId, true);
    }

    private void close(UUID meetingId, boolean catchUpFirst) {
        roster.forget(meetingId);
        paged.forget(meetingId);
        Set<Conn> s = byMeeting.remove(meetingId);
        if (s == null) {
            return;
        }
        for (Conn c : s) {
            if (s.remove(c) && c.remote) {
                remoteGone(meetingId); // removed once: a concurrent remove(c) finds it gone
            }
            c.left = true;
            c.tasks.execute(() -> {
                if (catchUpFirst && c.joined()) {
                    catchUp(c);
                }
                c.session.close(CloseReason.NORMAL);
            });
        }
    }

    /** Closes sockets that went silent (ghosts); the close path handles reconnect grace idempotently. */
    void sweep(long idleNanos) {
        long now = System.nanoTime();
        for (Set<Conn> s : byMeeting.values()) {
            for (Conn c : s) {
                if (now - c.lastSeenNanos > idleNanos) {
                    c.tasks.execute(() -> c.session.close(CloseReason.GOING_AWAY));
                }
            }
        }
    }

    /** Every joined socket that has not left (for sweeps such as drain migration). */
    void forEachJoined(java.util.function.Consumer<Conn> action) {
        for (Set<Conn> s : byMeeting.values()) {
            for (Conn c : s) {
                if (c.joined() && !c.left) {
                    action.accept(c);
                }
            }
        }
    }

    int count() {
        return byMeeting.values().stream().mapToInt(Set::size).sum();
    }
}
