package dev.parley.e2e.chaos;

import com.fasterxml.jackson.databind.JsonNode;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * Polls the platform every ~250 ms, during and after every fault, and feeds the invariants: PostgreSQL's epochs
 * (JDBC), every SFU's {@code /internal/v1/state}, every controller's {@code /internal/v1/meetings/{id}/state} and
 * readiness, and the load client's receive counters. Also keeps, per meeting, whether all its media pairs are
 * flowing (for "media back" times).
 */
final class Observer implements AutoCloseable {
    static final long FLOW_WINDOW_NANOS = 1_200_000_000L;
    private final ChaosPlatform platform;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500))
        .version(HttpClient.Version.HTTP_1_1).build();
    private final List<Invariant> invariants;
    private final GrantTimeline timeline;
    final MediaLedger ledger;
    private final CommandsExactlyOnce commands;
    private final Supplier<Map<String, List<String>>> everyone;
    private final Supplier<Map<String, List<String>>> active;
    private final LoadFleet fleet;
    final Map<String, List<long[]>> flow = new ConcurrentHashMap<>();
    private final List<Observation> recent = new CopyOnWriteArrayList<>();
    private volatile boolean closed;
    private volatile Thread thread;
    private Connection pg;
    volatile long cycles;
    volatile long lastCycleMs;

    Observer(ChaosPlatform platform, List<Invariant> invariants, GrantTimeline timeline, MediaLedger ledger,
             CommandsExactlyOnce commands, LoadFleet fleet, Supplier<Map<String, List<String>>> everyone,
             Supplier<Map<String, List<String>>> active) {
        this.platform = platform;
        this.invariants = invariants;
        this.timeline = timeline;
        this.ledger = ledger;
        this.commands = commands;
        this.fleet = fleet;
        this.everyone = everyone;
        this.active = active;
    }

    void start() {
        thread = Thread.ofPlatform().daemon().name("chaos-observer").start(this::loop);
    }

    private void loop() {
        while (!closed) {
            long t0 = System.nanoTime();
            try {
                cycle();
            } catch (RuntimeException e) {
                ChaosPlatform.log("observer cycle failed: %s", e);
            }
            long took = (System.nanoTime() - t0) / 1_000_000;
            lastCycleMs = took;
            if (took < 250) Api.sleep(250 - took);
        }
    }

    private void cycle() {
        Map<String, List<String>> all = everyone.get();
        List<String> meetings = new ArrayList<>(all.keySet());
        Map<String, Long> before = pgEpochs(meetings);
        long nanos = System.nanoTime();
        long wall = System.currentTimeMillis();
        List<Observation.SfuView> sfus = sfuViews();
        long answered = System.nanoTime();                  // each SFU's snapshot lies between nanos and answered
        Map<String, Long> after = pgEpochs(meetings);
        Map<String, List<Observation.OwnerView>> owners = ownerViews(meetings);
        Observation o = new Observation(nanos, wall, before, after, sfus, owners);
        for (Map.Entry<String, List<String>> e : all.entrySet()) {
            for (String pid : e.getValue()) timeline.record(e.getKey(), pid, nanos, answered, o.grantState(e.getKey(), pid), o.grantMark(e.getKey(), pid));
        }
        sampleLoad();
        long now = System.nanoTime();
        for (Map.Entry<String, List<String>> e : active.get().entrySet()) {
            boolean f = ledger.flowing(e.getKey(), e.getValue(), now, FLOW_WINDOW_NANOS);
            flow.computeIfAbsent(e.getKey(), k -> new CopyOnWriteArrayList<>()).add(new long[] {now, f ? 1 : 0});
        }
        for (Invariant i : invariants) i.observe(o);
        recent.add(o);
        if (recent.size() > 8) recent.remove(0);
        if (++cycles % 4 == 0) checkCommands();
    }

    private void sampleLoad() {
        long nanos = System.nanoTime();
        long wall = System.currentTimeMillis();
        for (LoadFleet.Meeting m : fleet.meetings) {
            for (LoadParticipant s : m.members) {
                if (s.pid == null) continue;
                for (LoadParticipant p : m.members) {
                    if (p == s || p.pid == null) continue;
                    long count = s.receivedFrom(p.tag);
                    ledger.record(m.id, s.pid, p.pid, nanos, wall, count, false, s.takeEarliestSent(p.tag));
                }
            }
        }
    }

    private void checkCommands() {
        try {
            Connection c = pg();
            if (c != null) commands.checkNow(c);
        } catch (Exception e) {
            dropPg();
        }
    }

    /** The checker's own connection; null while PostgreSQL is down. */
    synchronized Connection pg() {
        try {
            if (pg == null || pg.isClosed()) pg = platform.postgres.connect();
            return pg;
        } catch (Exception e) {
            pg = null;
            return null;
        }
    }

    private synchronized void dropPg() {
        try {
            if (pg != null) pg.close();
        } catch (Exception ignored) {
            // broken anyway
        }
        pg = null;
    }

    private Map<String, Long> pgEpochs(List<String> meetings) {
        Map<String, Long> out = new HashMap<>();
        if (meetings.isEmpty() || !platform.postgres.running()) return out;
        try {
            Connection c = pg();
            if (c == null) return out;
            try (PreparedStatement ps = c.prepareStatement("SELECT meeting_id::text, controller_epoch FROM meetings WHERE meeting_id::text = ANY(?)")) {
                ps.setArray(1, c.createArrayOf("text", meetings.toArray()));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) out.put(rs.getString(1), rs.getLong(2));
                }
            }
        } catch (Exception e) {
            dropPg();
        }
        return out;
    }

    List<Observation.SfuView> sfuViews() {
        List<CompletableFuture<Observation.SfuView>> fs = new ArrayList<>();
        for (Pod s : platform.sfus) {
            int inc = s.incarnation();
            if (!s.alive()) {
                fs.add(CompletableFuture.completedFuture(new Observation.SfuView(s.name, inc, Observation.Reach.DEAD, Map.of(), 0)));
                continue;
            }
            fs.add(get("http://127.0.0.1:" + s.internalPort + "/internal/v1/state", true).handle((r, err) -> {
                if (err != null || r.statusCode() != 200) {
                    return new Observation.SfuView(s.name, inc, s.alive() ? Observation.Reach.UNKNOWN : Observation.Reach.DEAD, Map.of(), 0);
                }
                dump(s.name, r.body());
                return parseSfu(s.name, inc, r.body());
            }));
        }
        List<Observation.SfuView> out = new ArrayList<>();
        for (CompletableFuture<Observation.SfuView> f : fs) out.add(f.join());
        return out;
    }

    private static final boolean DUMP = Boolean.getBoolean("chaos.dumpState");
    private final Map<String, Long> lastDump = new java.util.concurrent.ConcurrentHashMap<>();

    /** {@code -Dchaos.dumpState=true}: each SFU's raw {@code /state} every ~2 s under logs/state/ (diagnosis). */
    private void dump(String sfu, String body) {
        if (!DUMP) return;
        long now = System.currentTimeMillis();
        Long last = lastDump.get(sfu);
        if (last != null && now - last < 2_000) return;
        lastDump.put(sfu, now);
        try {
            java.nio.file.Path dir = platform.logDir.resolve("state");
            java.nio.file.Files.createDirectories(dir);
            java.nio.file.Files.writeString(dir.resolve(now + "-" + sfu + ".json"), body);
        } catch (java.io.IOException e) {
            // diagnosis only
        }
    }

    static Observation.SfuView parseSfu(String pod, int incarnation, String body) {
        try {
            JsonNode j = Api.JSON.readTree(body);
            Map<String, Observation.SfuMeeting> meetings = new LinkedHashMap<>();
            for (JsonNode m : j.path("meetings")) {
                Map<String, Observation.SfuParticipant> ps = new LinkedHashMap<>();
                for (JsonNode p : m.path("participants")) {
                    String pid = p.path("participant_id").asText();
                    // a live revocation (authorizes nothing) counts as no grant: media under it is as wrong as without one,
                    // and an old epoch's revocation left at an SFU after the meeting ended authorizes nothing
                    long live = p.path("grant_authorizes").asBoolean(true) ? p.path("grant_live_ms").asLong() : 0;
                    ps.put(pid, new Observation.SfuParticipant(pid, p.path("grant_version").asLong(), live));
                }
                String id = m.path("meeting_id").asText();
                meetings.put(id, new Observation.SfuMeeting(id, m.path("controller_epoch").asLong(), ps));
            }
            return new Observation.SfuView(pod, incarnation, Observation.Reach.ANSWERED, meetings, j.path("transports").asInt());
        } catch (Exception e) {
            return new Observation.SfuView(pod, incarnation, Observation.Reach.UNKNOWN, Map.of(), 0);
        }
    }

    private Map<String, List<Observation.OwnerView>> ownerViews(List<String> meetings) {
        Map<String, List<Observation.OwnerView>> out = new LinkedHashMap<>();
        Map<String, CompletableFuture<Boolean>> ready = new HashMap<>();
        for (Pod c : platform.controllers) {
            ready.put(c.name, !c.alive() ? CompletableFuture.completedFuture(false)
                : get("http://127.0.0.1:" + c.internalPort + "/health/readiness", false)
                    .handle((r, e) -> e == null && r.statusCode() == 200));
        }
        Map<String, List<CompletableFuture<Observation.OwnerView>>> fs = new LinkedHashMap<>();
        for (String m : meetings) {
            for (Pod c : platform.controllers) {
                CompletableFuture<Observation.OwnerView> f;
                if (!c.alive()) {
                    f = CompletableFuture.completedFuture(new Observation.OwnerView(c.name, false, false, false, 0));
                } else {
                    f = get("http://127.0.0.1:" + c.internalPort + "/internal/v1/meetings/" + m + "/state", true).handle((r, e) -> {
                        if (e != null || r.statusCode() != 200) return new Observation.OwnerView(c.name, false, false, false, 0);
                        try {
                            JsonNode j = Api.JSON.readTree(r.body());
                            return new Observation.OwnerView(c.name, true, ready.get(c.name).join(), j.path("owned_here").asBoolean(),
                                j.path("owner_epoch").asLong());
                        } catch (Exception x) {
                            return new Observation.OwnerView(c.name, false, false, false, 0);
                        }
                    });
                }
                fs.computeIfAbsent(m, k -> new ArrayList<>()).add(f);
            }
        }
        fs.forEach((m, list) -> out.put(m, list.stream().map(CompletableFuture::join).toList()));
        return out;
    }

    private CompletableFuture<HttpResponse<String>> get(String url, boolean auth) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofMillis(1500)).GET();
        if (auth) b.header("Authorization", "Bearer " + platform.internalSecret);
        return http.sendAsync(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The owner pod of {@code meetingId} in the latest poll that saw one, or null. */
    String ownerOf(String meetingId) {
        for (int i = recent.size() - 1; i >= 0; i--) {
            List<Observation.OwnerView> vs = recent.get(i).owners().get(meetingId);
            if (vs == null) continue;
            for (Observation.OwnerView v : vs) if (v.ownedHere()) return v.pod();
        }
        return null;
    }

    Observation latest() {
        return recent.isEmpty() ? null : recent.get(recent.size() - 1);
    }

    /** Waits for the next complete poll. */
    void awaitCycle() {
        long c = cycles;
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (cycles == c && System.nanoTime() < deadline) Api.sleep(50);
    }

    @Override
    public void close() {
        closed = true;
        Thread t = thread;
        if (t != null) {
            try {
                t.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        dropPg();
    }
}
