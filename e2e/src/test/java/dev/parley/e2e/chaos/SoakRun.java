package dev.parley.e2e.chaos;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A soak: the chaos platform (real processes: PostgreSQL, three etcd members, two controllers, three SFUs, TURN)
 * carries load-client meetings for hours with churn (every {@code churnEvery} the oldest meeting ends and a new
 * one starts), no faults. Every {@code sampleEvery} each pod's RSS, heap after a full GC, file descriptors and
 * threads, and the platform's resources (etcd keys, PostgreSQL connections, transports, allocations, sockets) are
 * sampled; at the end each series' slope is reported and judged flat or not ({@link Slope}), and after every
 * meeting ended the resources must be back at their baseline (no leaked transports or allocations).
 */
final class SoakRun implements AutoCloseable {
    /** Series floors: the grain below which a change is noise, not a leak (see bench/soak/README.md). */
    private static final Map<String, Double> FLOORS = Map.of(
        "rss", 48.0 * 1024 * 1024, "heap", 16.0 * 1024 * 1024, "fds", 8.0, "threads", 4.0, "res", 2.0);

    record Settings(Duration length, Duration sampleEvery, Duration churnEvery, int meetings, int size) {
    }

    record Result(int flat, int judged, boolean backToBaseline, long errors, String report) {
        String lastLine() {
            return "soak: " + flat + "/" + judged + " series flat; resources back to baseline: " + (backToBaseline ? "yes" : "NO")
                + "; errors " + errors;
        }
    }

    private final Settings s;
    private final Path outDir;
    private ChaosPlatform platform;
    private LoadFleet fleet;
    private Observer observer;
    private Api api;
    private ResourceCounts resources;
    private final Map<String, List<double[]>> series = new LinkedHashMap<>();
    private final AtomicLong errors = new AtomicLong();
    private final List<Long> errorsPerWindow = new ArrayList<>();
    private int meetingNo;

    SoakRun(Settings s, Path outDir) {
        this.s = s;
        this.outDir = outDir;
    }

    Result execute() throws Exception {
        ChaosPlatform.logTo(outDir.resolve("soak.log"));
        platform = ChaosPlatform.start(outDir.resolve("logs"));
        api = new Api("http://127.0.0.1:" + platform.front.port());
        fleet = new LoadFleet(api, platform);
        observer = new Observer(platform, List.of(), new GrantTimeline(), new MediaLedger(), new CommandsExactlyOnce(), fleet,
            Map::of, Map::of);
        resources = new ResourceCounts(platform, observer::sfuViews);
        Map<String, Long> baseline = resources.counts();
        ChaosPlatform.log("soak: baseline %s; %s", baseline, s);
        for (int i = 0; i < s.meetings(); i++) startMeeting();
        long t0 = System.nanoTime();
        long end = t0 + s.length().toNanos();
        long nextSample = t0;
        long nextChurn = t0 + s.churnEvery().toNanos();
        long lastErrors = 0;
        Path csv = outDir.resolve("soak-samples.csv");
        Files.deleteIfExists(csv);
        while (System.nanoTime() < end) {
            long now = System.nanoTime();
            if (now >= nextChurn) {
                churn();
                nextChurn += s.churnEvery().toNanos();
            }
            if (now >= nextSample) {
                double t = (now - t0) / 1e9;
                Map<String, Double> row = sample();
                row.forEach((k, v) -> { if (v >= 0) series.computeIfAbsent(k, x -> new ArrayList<>()).add(new double[] {t, v}); });
                long e = errors.get();
                errorsPerWindow.add(e - lastErrors);
                lastErrors = e;
                appendCsv(csv, t, row);
                ChaosPlatform.log("soak: t=%ds meetings=%d errors=%d %s", (long) t, fleet.meetings.size(), e, brief(row));
                nextSample += s.sampleEvery().toNanos();
            }
            Api.sleep(250);
        }
        for (LoadFleet.Meeting m : new ArrayList<>(fleet.meetings)) endMeeting(m);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        Map<String, Long> now = resources.counts();
        ResourcesBackToBaseline judge = new ResourcesBackToBaseline();
        judge.baseline(baseline);
        while (!judge.atBaseline(now) && System.nanoTime() < deadline) {
            Api.sleep(1000);
            now = resources.counts();
        }
        boolean back = judge.atBaseline(now);
        ChaosPlatform.log("soak: after cleanup %s (baseline %s)", now, baseline);
        return report(back, baseline, now);
    }

    private void startMeeting() {
        String label = "s" + (meetingNo++);
        try {
            fleet.addMeeting(label, s.size(), 4);
        } catch (Exception e) {
            errors.incrementAndGet();
            ChaosPlatform.log("soak: meeting %s did not start: %s", label, e);
        }
    }

    private void churn() {
        if (!fleet.meetings.isEmpty()) endMeeting(fleet.meetings.get(0));
        startMeeting();
    }

    private void endMeeting(LoadFleet.Meeting m) {
        ObjectNode body = Api.JSON.createObjectNode().put("type", "end_meeting");
        Api.Reply r = api.retrying("POST", "/v1/meetings/" + m.id + "/commands", m.host.token, body, UUID.randomUUID().toString(),
            Duration.ofSeconds(30));
        if (!r.ok()) {
            errors.incrementAndGet();
            ChaosPlatform.log("soak: end of %s answered %d %s", m.id, r.status(), r.code());
        }
        fleet.drop(m);
    }

    private Map<String, Double> sample() {
        Map<String, Double> row = new LinkedHashMap<>();
        List<Pod> pods = new ArrayList<>(platform.controllers);
        pods.addAll(platform.sfus);
        pods.add(platform.turn);
        for (Pod p : pods) {
            ProcessSample ps = ProcessSample.of(p.pid(), true);
            row.put(p.name + " rss", (double) ps.rssBytes());
            row.put(p.name + " heap", (double) ps.heapAfterGcBytes());
            row.put(p.name + " fds", (double) ps.fds());
            row.put(p.name + " threads", (double) ps.threads());
        }
        // resources that follow the load (transports, sockets) are reported, not judged: churn moves them
        resources.counts().forEach((k, v) -> row.put("res " + k, (double) v));
        long received = 0;
        for (LoadParticipant p : fleet.all()) for (var a : p.receivedFrom.values()) received += a.get();
        row.put("load packets received (cumulative)", (double) received);
        return row;
    }

    /**
     * Only the pods' footprint, etcd keys, PostgreSQL connections and the meetings SFUs hold are judged (the soak keeps
     * the number of live meetings constant, so an SFU that forgets none of the ended ones grows); the rest follows the
     * churn.
     */
    private static Double floorOf(String name) {
        if (name.startsWith("res ")) {
            return name.contains("etcd") || name.contains("postgres") || name.contains("sfu meetings") ? FLOORS.get("res") : null;
        }
        for (String k : List.of("rss", "heap", "fds", "threads")) if (name.endsWith(" " + k)) return FLOORS.get(k);
        return null;
    }

    private Result report(boolean back, Map<String, Long> baseline, Map<String, Long> after) throws Exception {
        StringBuilder sb = new StringBuilder("| series | samples | mean | slope per hour | change over run | bound | flat |\n|---|---|---|---|---|---|---|\n");
        int flat = 0, judged = 0;
        for (Map.Entry<String, List<double[]>> e : series.entrySet()) {
            List<double[]> pts = e.getValue();
            // the first fifth is warm-up (JIT, pools and caches filling): judged from there on
            List<double[]> steady = pts.subList(pts.size() / 5, pts.size());
            if (steady.size() < 3) continue;
            Slope sl = Slope.of(steady);
            Double floor = floorOf(e.getKey());
            String verdict = "(reported)";
            if (floor != null) {
                judged++;
                boolean ok = sl.flat(floor);
                if (ok) flat++;
                verdict = ok ? "yes" : "**NO**";
            }
            sb.append("| ").append(e.getKey()).append(" | ").append(sl.samples()).append(" | ").append(fmt(e.getKey(), sl.mean()))
                .append(" | ").append(fmt(e.getKey(), sl.perHour())).append(" | ").append(fmt(e.getKey(), sl.changeOverSpan()))
                .append(" | ").append(floor == null ? "-" : "≤ " + fmt(e.getKey(), sl.bound(floor))).append(" | ").append(verdict).append(" |\n");
        }
        sb.append("\nerrors per sample window: ").append(errorsPerWindow).append('\n');
        sb.append("baseline ").append(baseline).append("\nafter cleanup ").append(after).append('\n');
        Result r = new Result(flat, judged, back, errors.get(), sb.toString());
        Files.writeString(outDir.resolve("summary-soak.md"), r.report() + "\n" + r.lastLine() + "\n");
        return r;
    }

    private static String fmt(String name, double v) {
        if (name.endsWith(" rss") || name.endsWith(" heap")) return String.format("%.1f MiB", v / (1024 * 1024));
        return String.format("%.1f", v);
    }

    private static String brief(Map<String, Double> row) {
        StringBuilder b = new StringBuilder();
        row.forEach((k, v) -> {
            if (k.endsWith(" rss") || k.endsWith(" heap")) b.append(k).append('=').append(Math.round(v / (1024 * 1024))).append("M ");
            else b.append(k).append('=').append(Math.round(v)).append(' ');
        });
        return b.toString().trim();
    }

    private static void appendCsv(Path csv, double t, Map<String, Double> row) throws Exception {
        if (!Files.exists(csv)) Files.writeString(csv, "seconds," + String.join(",", row.keySet()) + "\n");
        StringBuilder b = new StringBuilder(String.format("%.0f", t));
        for (double v : row.values()) b.append(',').append(String.format("%.0f", v));
        Files.writeString(csv, b.append('\n'), java.nio.file.StandardOpenOption.APPEND);
    }

    @Override
    public void close() {
        if (observer != null) observer.close();
        if (fleet != null) fleet.close();
        if (platform != null) platform.close();
    }
}
