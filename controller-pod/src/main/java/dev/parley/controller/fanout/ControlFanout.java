package dev.parley.controller.fanout;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.api.JsonBody;
import dev.parley.controller.config.ParleyConfig;
import dev.parley.controller.control.ControlEvent;
import dev.parley.controller.db.Db;
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
import java.util.LinkedHashMap;
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
 * The outbox relay leader's cross-pod fan-out of committed control events: every round it reads each live
 * meeting's head ({@code controller_epoch}, {@code control_seq}) in one statement, reads the events committed
 * since the previous round for the meetings that moved (one statement, at most {@link #MAX_EVENTS} per
 * meeting) and POSTs them to every other live controller pod ({@code /parley/v1/controllers/}) at
 * {@link ControlEventsController#PATH}; its own pod gets them in-process. A pod that did not acknowledge a
 * batch (and a pod seen for the first time, and every pod after a change of relay leader) is sent the heads of
 * those meetings without events: the receiver reads what its sockets lack from the control log. Receivers drop
 * what a socket already has (by seq), so a batch may arrive any number of times. Nothing is read while no
 * other controller pod exists and no socket here waits for another pod's events.
 */
@Singleton
public class ControlFanout {
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
    private final Map<UUID, Head> last = new HashMap<>();
    /** Pods that acknowledged a complete view (all heads) since this pod became the leader. */
    private final Set<String> inSync = new HashSet<>();
    /** Pod → meetings whose events it did not acknowledge (it gets their current head next round). */
    private final Map<String, Set<UUID>> owed = new HashMap<>();

    public ControlFanout(Db db, ParleyConfig cfg, PodLink link, SessionRegistry local, Client etcd) {
        this.db = db;
        this.cfg = cfg;
        this.link = link;
        this.local = local;
        this.pods = RegistryWatcher.controllers(etcd, JSON).start();
        loop.scheduleWithFixedDelay(this::tick, INTERVAL_MILLIS, INTERVAL_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Set by the outbox relay after each leadership check: only the relay leader fans out. */
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
        inSync.clear();
        owed.clear();
    }

    void round() {
        Map<String, ControllerEntry> others = new HashMap<>(pods.entries());
        others.remove(cfg.podName());
        inSync.retainAll(others.keySet());
        owed.keySet().retainAll(others.keySet());
        if (others.isEmpty() && !local.hasRemoteSessions()) {
            reset(); // one controller: every socket is on the owner, which delivers directly
            return;
        }
        Map<UUID, Head> heads = readHeads();
        // meetings that moved since the last round, with the events in between when they can be read exactly
        Map<UUID, Head> moved = new LinkedHashMap<>();
        Map<UUID, long[]> ranges = new HashMap<>();
        for (Map.Entry<UUID, Head> h : heads.entrySet()) {
            Head before = last.get(h.getKey());
            Head now = h.getValue();
            if (now.equals(before)) {
                continue;
            }
            moved.put(h.getKey(), now);
            if (before != null && before.epoch() == now.epoch() && now.seq() > before.seq()
                    && now.seq() - before.seq() <= MAX_EVENTS) {
                ranges.put(h.getKey(), new long[]{now.epoch(), before.seq(), now.seq()});
            }
        }
        Map<UUID, List<ControlEvent>> events = ranges.isEmpty() ? Map.of() : readEvents(ranges);

        Map<String, CompletableFuture<Boolean>> sent = new HashMap<>();
        Map<String, Set<UUID>> sentHeadsOnly = new HashMap<>();
        for (Map.Entry<String, ControllerEntry> pod : others.entrySet()) {
            String name = pod.getKey();
            Set<UUID> headsOnly = new HashSet<>();
            if (!inSync.contains(name)) {
                headsOnly.addAll(heads.keySet());
            } else if (owed.containsKey(name)) {
                headsOnly.addAll(owed.get(name));
            }
            headsOnly.removeAll(moved.keySet());
            headsOnly.retainAll(heads.keySet());
            if (moved.isEmpty() && headsOnly.isEmpty()) {
                continue;
            }
            sentHeadsOnly.put(name, headsOnly);
            String body = batch(moved, events, headsOnly, heads);
            String base = pod.getValue().internalUrl();
            sent.put(name, CompletableFuture.supplyAsync(() ->
                    link.post(base, ControlEventsController.PATH, body, Duration.ofSeconds(2)) / 100 == 2, senders));
        }
        // this pod's own sockets, in-process
        for (Map.Entry<UUID, Head> m : moved.entrySet()) {
            local.fanIn(m.getKey(), m.getValue().epoch(), m.getValue().seq(), events.getOrDefault(m.getKey(), List.of()));
        }
        for (Map.Entry<String, CompletableFuture<Boolean>> s : sent.entrySet()) {
            boolean ok;
            try {
                ok = s.getValue().get(3, TimeUnit.SECONDS);
            } catch (Exception e) {
                ok = false;
            }
            String name = s.getKey();
            if (ok) {
                inSync.add(name);
                owed.remove(name);
            } else if (inSync.contains(name)) {
                Set<UUID> o = owed.computeIfAbsent(name, k -> new HashSet<>());
                o.addAll(moved.keySet());
                o.addAll(sentHeadsOnly.get(name));
            }
            // a pod never in sync stays out of inSync: it gets every head again next round
        }
        last.clear();
        last.putAll(heads);
    }

    /** Every meeting that is not over (and those that ended in the last two minutes, for their last events). */
    private Map<UUID, Head> readHeads() {
        return db.read(c -> {
            Map<UUID, Head> out = new HashMap<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT meeting_id, controller_epoch, control_seq FROM meetings "
                    + "WHERE status <> 'ended' OR ended_at > now() - interval '2 minutes'");
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getObject(1, UUID.class), new Head(rs.getLong(2), rs.getLong(3)));
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

    /** {@code {"meetings":[{meeting_id, epoch, seq, events:[{seq, event_id, type, payload, audience}]}]}}. */
    static String batch(Map<UUID, Head> moved, Map<UUID, List<ControlEvent>> events, Set<UUID> headsOnly,
                        Map<UUID, Head> heads) {
        ObjectNode root = JsonBody.obj();
        ArrayNode list = root.putArray("meetings");
        for (Map.Entry<UUID, Head> m : moved.entrySet()) {
            entry(list, m.getKey(), m.getValue(), events.getOrDefault(m.getKey(), List.of()));
        }
        for (UUID m : headsOnly) {
            entry(list, m, heads.get(m), List.of());
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
