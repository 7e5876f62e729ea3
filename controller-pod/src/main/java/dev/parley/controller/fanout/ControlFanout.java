package dev.parley.controller.fanout;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.config.ParleyConfig;
import dev.parley.controller.control.ControlEvent;
import dev.parley.controller.db.Db;
import dev.parley.controller.outbox.RelayLeadership;
import dev.parley.controller.peer.PodLink;
import dev.parley.controller.signaling.SessionRegistry;
import dev.parley.platform.etcd.ControllerEntry;
import dev.parley.platform.etcd.RegistryWatcher;
import io.etcd.jetcd.Client;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The outbox relay leader's cross-pod fan-out of committed control events. Every round (100 ms) it POSTs a batch
 * to every other live controller pod ({@code /parley/v1/controllers/}) at {@link ControlEventsController#PATH};
 * each pod answers with its interest: the meetings it has sockets of that it does not own (owners deliver to
 * their own sockets directly). For the union of those meetings (and of this pod's own) the leader reads the heads
 * ({@code controller_epoch}, {@code control_seq}; primary-key lookups, one statement) and the events committed
 * since its previous round (one statement, at most {@link #MAX_EVENTS} per meeting), and sends each pod the
 * meetings it is interested in that moved, with their events. A pod gets the head alone of a meeting it has not
 * been brought up to date on yet (new interest, a new leader, a batch it did not acknowledge): the receiver reads
 * what its sockets lack from the control log. Receivers drop what a socket already has (by seq), so a batch may
 * arrive any number of times. Nothing is read from PostgreSQL while no pod has such sockets, and nothing runs at
 * all while there is one controller.
 */
@Singleton
public class ControlFanout implements RelayLeadership {
    private static final Logger LOG = LoggerFactory.getLogger(ControlFanout.class);
    /** More new events than this for one meeting in one round: the head alone is sent (receivers read the log). */
    static final int MAX_EVENTS = 200;
    static final long INTERVAL_MILLIS = 100;
    private static final ObjectMapper JSON = new ObjectMapper();

    record Head(long epoch, long seq) {
    }

    private final Db db;
    private final ParleyConfig cfg;
    private final PodLink link;
    private final SessionRegistry local;
    private final RegistryWatcher<ControllerEntry> pods;
    private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "control-fanout");
        t.setDaemon(true);
        return t;
    });
    private final ExecutorService senders = Executors.newVirtualThreadPerTaskExecutor();
    private volatile boolean leading;

    // relay-loop state (only touched by the loop thread)
    /** Heads read in the previous round. */
    private final Map<UUID, Head> last = new HashMap<>();
    /** Pod → the meetings it is interested in (its last answer). */
    private final Map<String, Set<UUID>> interest = new HashMap<>();
    /** Pod → the meetings it acknowledged up to {@link #last} (it needs only what moves from there). */
    private final Map<String, Set<UUID>> synced = new HashMap<>();
    /** This pod's own meetings brought up to date. */
    private final Set<UUID> localSynced = new HashSet<>();

    public ControlFanout(Db db, ParleyConfig cfg, PodLink link, SessionRegistry local, Client etcd) {
        this.db = db;
        this.cfg = cfg;
        this.link = link;
        this.local = local;
        this.pods = RegistryWatcher.controllers(etcd, JSON).start();
        loop.scheduleWithFixedDelay(this::tick, INTERVAL_MILLIS, INTERVAL_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Set by the outbox relay after each leadership check: only the relay leader fans out. */
    @Override
    public void leading(boolean isLeader) {
        this.leading = isLeader;
    }

    private void tick() {
        try {
            if (!leading) {
                reset();
                return;
            }
            round();
        } catch (RuntimeException e) {
            LOG.warn("control event fan-out round failed: {}", e.toString());
        }
    }

    private void reset() {
        last.clear();
        interest.clear();
        synced.clear();
        localSynced.clear();
    }

    void round() {
        Map<String, ControllerEntry> others = new HashMap<>(pods.entries());
        others.remove(cfg.podName());
        interest.keySet().retainAll(others.keySet());
        synced.keySet().retainAll(others.keySet());
        Set<UUID> localInterest = local.remoteMeetings();
        localSynced.retainAll(localInterest);
        if (others.isEmpty() && localInterest.isEmpty()) {
            reset(); // one controller: every socket is on the owner, which delivers directly
            return;
        }
        Set<UUID> wanted = new HashSet<>(localInterest);
        interest.values().forEach(wanted::addAll);
        Map<UUID, Head> heads = wanted.isEmpty() ? Map.of() : readHeads(wanted);
        // meetings that moved since the last round, with the events in between when they can be read exactly
        Set<UUID> moved = new HashSet<>();
        Map<UUID, long[]> ranges = new HashMap<>();
        for (Map.Entry<UUID, Head> h : heads.entrySet()) {
            Head before = last.get(h.getKey());
            Head now = h.getValue();
            if (now.equals(before)) {
                continue;
            }
            moved.add(h.getKey());
            if (before != null && before.epoch() == now.epoch() && now.seq() > before.seq()
                    && now.seq() - before.seq() <= MAX_EVENTS) {
                ranges.put(h.getKey(), new long[]{now.epoch(), before.seq(), now.seq()});
            }
        }
        Map<UUID, List<ControlEvent>> events = ranges.isEmpty() ? Map.of() : readEvents(ranges);

        // every other pod, even with nothing to send: its answer is its current interest
        Map<String, CompletableFuture<PodLink.Reply>> sent = new HashMap<>();
        Map<String, Set<UUID>> covered = new HashMap<>();
        for (Map.Entry<String, ControllerEntry> pod : others.entrySet()) {
            String name = pod.getKey();
            Set<UUID> its = interest.getOrDefault(name, Set.of());
            Set<UUID> ok = synced.getOrDefault(name, Set.of());
            Set<UUID> send = new HashSet<>();
            for (UUID m : its) {
                if (heads.containsKey(m) && (moved.contains(m) || !ok.contains(m))) {
                    send.add(m);
                }
            }
            Set<UUID> cover = new HashSet<>(its);
            cover.retainAll(heads.keySet());
            covered.put(name, cover);
            String body = batch(send, heads, events, ok, moved);
            String base = pod.getValue().internalUrl();
            sent.put(name, CompletableFuture.supplyAsync(() ->
                    link.call(base, ControlEventsController.PATH, body, Duration.ofSeconds(2)), senders));
        }
        // this pod's own sockets, in-process
        for (UUID m : localInterest) {
            Head h = heads.get(m);
            if (h != null && (moved.contains(m) || !localSynced.contains(m))) {
                boolean exact = moved.contains(m) && localSynced.contains(m);
                local.fanIn(m, h.epoch(), h.seq(), exact ? events.getOrDefault(m, List.of()) : List.of());
                localSynced.add(m);
            }
        }
        for (Map.Entry<String, CompletableFuture<PodLink.Reply>> s : sent.entrySet()) {
            PodLink.Reply reply;
            try {
                reply = s.getValue().get(3, TimeUnit.SECONDS);
            } catch (Exception e) {
                reply = new PodLink.Reply(-1, null);
            }
            String name = s.getKey();
            if (reply.status() / 100 == 2) {
                synced.put(name, covered.get(name));
                interest.put(name, meetings(reply.body()));
            } else {
                synced.remove(name); // next round: the heads of everything it wants, it reads the rest from the log
            }
        }
        last.clear();
        last.putAll(heads);
    }

    /** The meeting ids of a receiver's answer {@code {"interest":[...]}}. */
    private static Set<UUID> meetings(com.fasterxml.jackson.databind.JsonNode body) {
        Set<UUID> out = new HashSet<>();
        if (body != null && body.path("interest").isArray()) {
            for (com.fasterxml.jackson.databind.JsonNode n : body.get("interest")) {
                try {
                    out.add(UUID.fromString(n.asText()));
                } catch (IllegalArgumentException e) {
                    LOG.debug("ignoring a malformed meeting id in a fan-out answer");
                }
            }
        }
        return out;
    }

    /** The heads of the given meetings (primary-key lookups in one statement). */
    private Map<UUID, Head> readHeads(Set<UUID> meetings) {
        return db.read(c -> {
            Map<UUID, Head> out = new HashMap<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT meeting_id, controller_epoch, control_seq FROM meetings "
                    + "WHERE meeting_id = ANY(?::uuid[])")) {
                ps.setArray(1, c.createArrayOf("uuid", meetings.toArray()));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.put(rs.getObject(1, UUID.class), new Head(rs.getLong(2), rs.getLong(3)));
                    }
                }
            }
            return out;
        });
    }

    /** The events in (after, upTo] of each meeting's epoch, in seq order, in one statement. */
    private Map<UUID, List<ControlEvent>> readEvents(Map<UUID, long[]> ranges) {
        int n = ranges.size();
        UUID[] ms = new UUID[n];
        Long[] eps = new Long[n];
        Long[] after = new Long[n];
        Long[] upTo = new Long[n];
        int i = 0;
        for (Map.Entry<UUID, long[]> r : ranges.entrySet()) {
            ms[i] = r.getKey();
            eps[i] = r.getValue()[0];
            after[i] = r.getValue()[1];
            upTo[i] = r.getValue()[2];
            i++;
        }
        return db.read(c -> {
            Map<UUID, List<ControlEvent>> out = new HashMap<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT e.meeting_id, e.controller_epoch, e.seq, e.event_id, "
                    + "e.event_type, e.payload::text, e.audience_participant_id "
                    + "FROM unnest(?::uuid[], ?::int8[], ?::int8[], ?::int8[]) AS w(m, ep, a, b) "
                    + "JOIN control_events e ON e.meeting_id = w.m AND e.controller_epoch = w.ep AND e.seq > w.a "
                    + "AND e.seq <= w.b ORDER BY e.meeting_id, e.seq")) {
                ps.setArray(1, c.createArrayOf("uuid", ms));
                ps.setArray(2, c.createArrayOf("int8", eps));
                ps.setArray(3, c.createArrayOf("int8", after));
                ps.setArray(4, c.createArrayOf("int8", upTo));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        UUID m = rs.getObject(1, UUID.class);
                        ObjectNode payload;
                        try {
                            payload = (ObjectNode) JSON.readTree(rs.getString(6));
                        } catch (Exception e) {
                            throw new java.sql.SQLException("unreadable control event", e);
                        }
                        out.computeIfAbsent(m, k -> new ArrayList<>()).add(new ControlEvent(m, rs.getLong(2),
                                rs.getLong(3), rs.getObject(4, UUID.class), rs.getString(5), payload,
                                rs.getObject(7, UUID.class)));
                    }
                }
            }
            return out;
        });
    }

    /**
     * {@code {"meetings":[{meeting_id, epoch, seq, events:[{seq, event_id, type, payload, audience}]}]}}: events only
     * for a meeting that moved and that the pod was up to date on (else the head alone).
     */
    static String batch(Set<UUID> send, Map<UUID, Head> heads, Map<UUID, List<ControlEvent>> events, Set<UUID> synced,
                        Set<UUID> moved) {
        ObjectNode root = JsonBody.obj();
        ArrayNode list = root.putArray("meetings");
        for (UUID m : send) {
            boolean exact = moved.contains(m) && synced.contains(m);
            entry(list, m, heads.get(m), exact ? events.getOrDefault(m, List.of()) : List.of());
        }
        return root.toString();
    }

    private static void entry(ArrayNode list, UUID meetingId, Head head, List<ControlEvent> events) {
        ObjectNode o = list.addObject();
        o.put("meeting_id", meetingId.toString());
        o.put("epoch", head.epoch());
        o.put("seq", head.seq());
        ArrayNode evs = o.putArray("events");
        for (ControlEvent e : events) {
            ObjectNode x = evs.addObject();
            x.put("seq", e.seq());
            x.put("event_id", e.eventId().toString());
            x.put("type", e.type());
            x.set("payload", e.payload());
            if (e.audience() != null) {
                x.put("audience", e.audience().toString());
            }
        }
    }

    @PreDestroy
    void stop() {
        loop.shutdownNow();
        senders.shutdownNow();
        pods.close();
    }
}
