package dev.parley.controller.interest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.aoi.AoiSettings;
import dev.parley.controller.aoi.Position;
import dev.parley.controller.aoi.PositionGate;
import dev.parley.controller.control.SessionHub;
import dev.parley.controller.http.JsonBody;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The owner's area-of-interest signaling (docs/api.md "Area of interest"): applies participants' positions (at most
 * {@link #RATE_PER_SECOND} per participant, latest wins), keeps each receiver's interest set and tells a receiver
 * its set, as a volatile {@code interest} event, whenever it changes. The SDK subscribes to exactly that set.
 */
@Singleton
public class InterestService {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(InterestService.class);
    /** Positions applied per participant and second; one sent sooner waits (a newer one replaces it). */
    public static final int RATE_PER_SECOND = 10;
    static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1) / RATE_PER_SECOND;
    /** Meetings in mode {@code all}: remembered so that their positions are refused without a query. */
    private static final MeetingInterest NOT_AOI = new MeetingInterest(new AoiSettings(1, 1));

    private final AoiModeStore modes;
    private final SessionHub hub;
    private final InterestMetrics metrics;
    private final Map<UUID, MeetingInterest> meetings = new ConcurrentHashMap<>();
    private final ScheduledExecutorService releases = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "aoi-release");
        t.setDaemon(true);
        return t;
    });

    public InterestService(AoiModeStore modes, SessionHub hub, InterestMetrics metrics) {
        this.modes = modes;
        this.hub = hub;
        this.metrics = metrics;
    }

    /** A {@code position} message of participant {@code p} (joined, meeting owned here): null when taken. */
    public Refusal position(UUID m, UUID p, JsonNode msg) {
        Position pos = Position.parse(msg);
        if (pos == null) {
            metrics.droppedMalformed.increment();
            return Refusal.MALFORMED;
        }
        MeetingInterest mi = meeting(m);
        if (mi == null) {
            return Refusal.UNKNOWN_MEETING;
        }
        if (mi == NOT_AOI) {
            metrics.droppedDisabled.increment();
            return Refusal.NOT_ENABLED;
        }
        String pid = p.toString();
        synchronized (mi) {
            PositionGate gate = mi.gate(pid, INTERVAL_NANOS);
            long now = System.nanoTime();
            switch (gate.offer(now, pos)) {
                case APPLY -> apply(m, mi, pid, pos);
                case HELD -> releases.schedule(() -> release(m, mi, pid, gate),
                        Math.max(0, gate.releaseAtNanos() - now), TimeUnit.NANOSECONDS);
                case REPLACED -> metrics.droppedRate.increment();
            }
        }
        return null;
    }

    /** Participant {@code p} has no socket left or left: it leaves everyone's interest set. */
    public void gone(UUID m, UUID p) {
        MeetingInterest mi = meetings.get(m);
        if (mi == null || mi == NOT_AOI) {
            return;
        }
        synchronized (mi) {
            send(m, mi, mi.remove(p.toString()));
            if (mi.sets.size() == 0) {
                meetings.remove(m, mi);
            }
        }
    }

    private MeetingInterest meeting(UUID m) {
        MeetingInterest mi = meetings.get(m);
        if (mi != null) {
            return mi;
        }
        Optional<AoiSettings> mode = modes.load(m);
        if (mode == null) {
            return null;
        }
        return meetings.computeIfAbsent(m, k -> mode.map(MeetingInterest::new).orElse(NOT_AOI));
    }

    private void release(UUID m, MeetingInterest mi, String pid, PositionGate gate) {
        try {
            synchronized (mi) {
                if (mi.gates.get(pid) != gate) {
                    return; // the participant left meanwhile
                }
                Position held = gate.release(System.nanoTime());
                if (held != null) {
                    apply(m, mi, pid, held);
                }
            }
        } catch (RuntimeException e) {
            // a scheduled task's exception would vanish with it: said, so a held position that was not applied shows
            LOG.warn("area of interest: a held position of meeting {} was not applied: {}", m, e.toString());
        }
    }

    private void apply(UUID m, MeetingInterest mi, String pid, Position pos) {
        metrics.applied.increment();
        send(m, mi, mi.move(pid, pos));
    }

    /** Under the meeting's lock, so that each receiver's messages are queued in the order they were computed. */
    private void send(UUID m, MeetingInterest mi, Map<String, List<String>> changed) {
        for (Map.Entry<String, List<String>> e : changed.entrySet()) {
            ObjectNode ev = JsonBody.obj();
            ev.put("type", "interest");
            // from the clock (µs) so that a new owner's sequence is above its predecessor's, +1 within a µs
            mi.sequence = Math.max(mi.sequence + 1, System.currentTimeMillis() * 1000);
            ev.put("sequence", mi.sequence);
            ArrayNode ids = ev.putArray("participants");
            e.getValue().forEach(ids::add);
            hub.volatileEventTo(m, e.getKey(), ev);
            metrics.updates.increment();
        }
    }

    @PreDestroy
    void stop() {
        releases.shutdownNow();
    }
}
