package dev.parley.e2e.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The chaos run: starts {@link ChaosPlatform}, two browsers ({@link BrowserMeeting}) and the load client's meetings
 * ({@link LoadFleet}), starts the {@link Observer} with every invariant, then injects each fault of the mode once
 * (quick) or {@code chaos.trials} times (full), one at a time, and cleans up. Per trial: a fresh "victim" joins one
 * load meeting, the fault starts, during it every load host issues commands and the victim is removed, the fault
 * ends, and the run waits until every meeting's media flows again (measured) and the removal is applied. The result
 * is the per-fault table and {@code chaos: <held>/<checked> invariants held}.
 */
final class ChaosRun implements AutoCloseable {
    static final long MEDIA_BACK_BOUND_MS = Long.getLong("chaos.mediaBackBoundMs", 30_000);
    static final long MIN_OBSERVE_MS = Long.getLong("chaos.minObserveMs", 8_000);

    final boolean full;
    final Path outDir;
    ChaosPlatform platform;
    Api api;
    LoadFleet fleet;
    private ResourceCounts resourceCounts;
    BrowserMeeting browsers;
    Observer observer;
    final MediaLedger ledger = new MediaLedger();
    final GrantTimeline timeline = new GrantTimeline();
    final MediaOnlyWithLiveGrant mediaGrant;
    final LiveGrantsOfCurrentEpoch currentEpoch = new LiveGrantsOfCurrentEpoch();
    final OneActingOwner oneOwner = new OneActingOwner();
    final RemovedGetsNoMedia removed;
    final MediaComesBack mediaBack = new MediaComesBack(MEDIA_BACK_BOUND_MS);
    final CommandsExactlyOnce commands = new CommandsExactlyOnce();
    final RecordingsFinishCleanly recordings = new RecordingsFinishCleanly();
    final ResourcesBackToBaseline resources = new ResourcesBackToBaseline();
    final List<Invariant> invariants;
    private final Set<String> removalIssued = ConcurrentHashMap.newKeySet();
    private final Map<String, String> faultDescriptions = new LinkedHashMap<>();
    private final Map<String, Integer> trialsPerFault = new LinkedHashMap<>();
    private int trial;

    /** The result of a run. */
    record Result(int held, int checked, String report) {
        String lastLine() {
            return "chaos: " + held + "/" + checked + " invariants held";
        }
    }

    ChaosRun(boolean full, Path outDir) {
        this.full = full;
        this.outDir = outDir;
        mediaGrant = new MediaOnlyWithLiveGrant(timeline, () -> (400L + platformDelay()) * 1_000_000L);
        removed = new RemovedGetsNoMedia(() -> 400L + platformDelay());
        invariants = List.of(mediaGrant, currentEpoch, oneOwner, removed, mediaBack, commands, recordings, resources);
        ledger.listen(mediaGrant::window);
        ledger.listen(removed::window);
    }

    /** Twice the proxies' largest delay: it may have applied on the way in and on the way out. */
    private long platformDelay() {
        return platform == null ? 0 : 2L * platform.maxProxyDelayMs();
    }

    List<Fault> faults() {
        if (!full) {
            return List.of(new Faults.SfuKill(), new Faults.OwnerControllerKill(), new Faults.EtcdLeaderKill(),
                new Faults.PostgresRestart(), new Faults.MediaImpairment(5, 80, 60, 8_000));
        }
        List<Fault> all = new ArrayList<>();
        int n = Integer.getInteger("chaos.trials", 2);
        for (int i = 0; i < n; i++) {
            all.addAll(List.of(new Faults.SfuKill(), new Faults.OwnerControllerKill(), new Faults.EtcdLeaderKill(),
                new Faults.EtcdDown(10_000), new Faults.PostgresRestart(), new Faults.PostgresOutage(10_000),
                new Faults.PostgresHang(10_000), new Faults.MediaImpairment(5, 80, 60, 10_000),
                new Faults.SignalingDrops(10_000), new Faults.ControllerEtcdPartition(10_000)));
        }
        all.add(new Faults.S3Outage(10_000));
        // combined faults, once each: a repair that needs a part that is down at the same time
        all.add(new Faults.Combined(new Faults.SfuKill(), new Faults.MediaImpairment(5, 80, 60, 10_000)));
        all.add(new Faults.Combined(new Faults.OwnerControllerKill(), new Faults.PostgresOutage(10_000)));
        all.add(new Faults.Combined(new Faults.EtcdLeaderKill(), new Faults.SignalingDrops(10_000)));
        return only(all);
    }

    /** {@code -Dchaos.faults=EtcdDown,SfuKill}: only the faults of those classes (a small reproduction run). */
    private static List<Fault> only(List<Fault> all) {
        String names = System.getProperty("chaos.faults", "");
        if (names.isBlank()) return all;
        List<String> wanted = List.of(names.split(","));
        return all.stream().filter(f -> wanted.contains(f.getClass().getSimpleName())).toList();
    }

    Result execute() throws Exception {
        long t0 = System.nanoTime();
        ChaosPlatform.logTo(outDir.resolve(full ? "chaos-full.log" : "chaos-quick.log"));
        platform = ChaosPlatform.start(outDir.resolve("logs"));
        api = new Api("http://127.0.0.1:" + platform.front.port());
        fleet = new LoadFleet(api, platform);
        browsers = new BrowserMeeting(platform, ledger);
        observer = new Observer(platform, invariants, timeline, ledger, commands, fleet, this::everyone, this::active);
        resourceCounts = new ResourceCounts(platform, observer::sfuViews);
        observer.start();
        observer.awaitCycle();
        resources.baseline(counts());
        ChaosPlatform.log("baseline %s", resources.baseline());
        browsers.start();
        ChaosPlatform.log("browsers in meeting %s", browsers.describe());
        int meetings = full ? 3 : 2;
        List<CompletableFuture<LoadFleet.Meeting>> ms = new ArrayList<>();
        for (int i = 0; i < meetings; i++) {
            String label = "m" + i;
            ms.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return fleet.addMeeting(label, 3, 4);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, r -> Thread.ofVirtual().start(r)));
        }
        for (CompletableFuture<LoadFleet.Meeting> m : ms) m.get(180, TimeUnit.SECONDS);
        ChaosPlatform.log("%d load meetings of 3 up after %d s", meetings, (System.nanoTime() - t0) / 1_000_000_000L);
        if (!awaitSteady(60_000)) ChaosPlatform.log("not all media flowing before the first fault: %s", flowReport());
        for (Fault f : faults()) {
            faultDescriptions.putIfAbsent(f.name(), f.description());
            trialsPerFault.merge(f.name(), 1, Integer::sum);
            trial(f);
        }
        cleanup();
        ChaosPlatform.log("run took %d s", (System.nanoTime() - t0) / 1_000_000_000L);
        return result();
    }

    // ------------------------------------------------------------------ one trial

    private void trial(Fault f) throws Exception {
        trial++;
        phase("steady");
        if (!awaitSteady(30_000)) ChaosPlatform.log("trial %d (%s) starts with media not flowing: %s", trial, f.name(), flowReport());
        LoadFleet.Meeting vm = fleet.meetings.get(trial % fleet.meetings.size());
        LoadParticipant victim = fleet.join(vm, "victim-" + trial, 4);
        awaitSteady(15_000);
        phase(f.name());
        ChaosPlatform.log("trial %d: %s", trial, f.description());
        long inject = System.nanoTime();
        CompletableFuture<JsonNode> rec = f instanceof Faults.S3Outage ? CompletableFuture.supplyAsync(this::startRecording) : null;
        if (rec != null) {
            rec.join();
            inject = System.nanoTime();
        }
        f.inject(this);
        List<CompletableFuture<CommandsExactlyOnce.Issued>> issued = new ArrayList<>();
        for (LoadFleet.Meeting m : fleet.meetings) {
            issued.add(issueAsync(m.id, m.host.token, body("lock_meeting").put("locked", true)));
            LoadParticipant target = m.members.get(1);
            issued.add(issueAsync(m.id, m.host.token, body("set_publish").put("participant_id", target.pid).put("audio", true).put("video", true)));
        }
        removalIssued.add(victim.pid);
        removed.watch(vm.id, victim.pid);
        CompletableFuture<CommandsExactlyOnce.Issued> removal = issueAsync(vm.id, vm.host.token,
            body("remove_participant").put("participant_id", victim.pid).put("allow_rejoin", true));
        if (f.durationMs() > 0) Api.sleep(f.durationMs());
        f.heal(this);
        long heal = f.durationMs() > 0 ? System.nanoTime() : inject;
        awaitBack(heal);
        for (String m : active().keySet()) {
            List<long[]> samples = observer.flow.getOrDefault(m, List.of());
            long back = MediaComesBack.backAfter(samples, inject, heal);
            mediaBack.record(f.name(), m, back);
            ChaosPlatform.log("  meeting %s media %s", m.substring(0, 8), back == MediaComesBack.NEVER_STOPPED ? "never stopped"
                : back == MediaComesBack.NOT_BACK ? "NOT BACK" : "back " + back + " ms after the fault");
        }
        if (mediaBack.violations() > 0 && trial == 1) ChaosPlatform.log("diagnostics: %s %s", fleetReport(), browsers.diagnostics());
        CommandsExactlyOnce.Issued r = removal.get(90, TimeUnit.SECONDS);
        long applied = awaitApplied(vm.id, vm.host.token, r);
        if (applied > 0) {
            removed.removed(vm.id, victim.pid, applied);
            ChaosPlatform.log("  victim %s removal applied %d ms after the fault began", victim.name,
                applied - (System.currentTimeMillis() - (System.nanoTime() - inject) / 1_000_000));
        } else {
            ChaosPlatform.log("  victim %s removal not applied: %s", victim.name, r);
        }
        for (CompletableFuture<CommandsExactlyOnce.Issued> c : issued) c.get(90, TimeUnit.SECONDS);
        for (LoadFleet.Meeting m : fleet.meetings) issue(m.id, m.host.token, body("lock_meeting").put("locked", false)); // next victim joins
        if (rec != null) finishRecording(rec.join(), vm);
        Api.sleep(2000); // the removed victim keeps sending: watch it for a while
        victim.close();
        f.restore(this);
        phase("steady");
    }

    private static ObjectNode body(String type) {
        return Api.JSON.createObjectNode().put("type", type);
    }

    private CompletableFuture<CommandsExactlyOnce.Issued> issueAsync(String meetingId, String token, ObjectNode body) {
        return CompletableFuture.supplyAsync(() -> issue(meetingId, token, body), r -> Thread.ofVirtual().start(r));
    }

    /** Issues a command through faults (same key on every retry), then replays it once: both must name one id. */
    CommandsExactlyOnce.Issued issue(String meetingId, String token, ObjectNode body) {
        String key = UUID.randomUUID().toString();
        CommandsExactlyOnce.Issued i = commands.track(meetingId, principalOf(token), key, body.path("type").asText());
        String path = "/v1/meetings/" + meetingId + "/commands";
        for (int round = 0; round < 2; round++) {
            Api.Reply r = api.retrying("POST", path, token, body, key, Duration.ofSeconds(60));
            i.lastAnswer = r.status() + " " + r.code();
            if (r.ok()) {
                i.acknowledged = true;
                i.ids.add(r.body().path("command_id").asText());
            } else if (r.status() >= 400 && r.status() < 500) {
                return i; // refused (e.g. meeting ended): nothing to track beyond "at most one row"
            }
        }
        return i;
    }

    /** Wall-clock ms of the command's {@code applied_at} (polling up to 40 s), or -1. */
    private long awaitApplied(String meetingId, String token, CommandsExactlyOnce.Issued i) {
        if (i.ids.isEmpty()) return -1;
        long deadline = System.nanoTime() + 40_000_000_000L;
        while (System.nanoTime() < deadline) {
            Api.Reply r = api.call("GET", "/v1/meetings/" + meetingId + "/commands/" + i.ids.get(0), token, null, null);
            if (r.ok() && "applied".equals(r.body().path("media_enforcement").asText())) {
                String at = r.body().path("applied_at").asText("");
                try {
                    return OffsetDateTime.parse(at).toInstant().toEpochMilli();
                } catch (RuntimeException e) {
                    return System.currentTimeMillis();
                }
            }
            Api.sleep(200);
        }
        return -1;
    }

    static String principalOf(String token) {
        try {
            return Api.JSON.readTree(Base64.getUrlDecoder().decode(token.split("\\.")[1])).path("sub").asText();
        } catch (Exception e) {
            return "";
        }
    }

    // ------------------------------------------------------------------ recording (s3 outage)

    private JsonNode startRecording() {
        LoadFleet.Meeting m = fleet.meetings.get(0);
        CommandsExactlyOnce.Issued i = issue(m.id, m.host.token, body("start_recording"));
        Api.Reply r = api.call("GET", "/v1/meetings/" + m.id + "/recordings", m.host.token, null, null);
        String job = null;
        for (JsonNode j : r.body().path("recordings")) job = j.path("recording_job_id").asText(job);
        if (job == null) throw new IllegalStateException("no recording job after " + i);
        try {
            platform.startRecorder(job, 1);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
            JsonNode s = api.call("GET", "/v1/recordings/" + job, m.host.token, null, null).body();
            if ("recording".equals(s.path("state").asText())) break;
            Api.sleep(500);
        }
        Api.sleep(4000);
        return Api.JSON.createObjectNode().put("job", job).put("meeting", m.id);
    }

    private void finishRecording(JsonNode rec, LoadFleet.Meeting vm) throws Exception {
        String job = rec.path("job").asText();
        LoadFleet.Meeting m = fleet.meetings.get(0);
        Api.sleep(4000);
        issue(m.id, m.host.token, body("stop_recording"));
        JsonNode state = null;
        long deadline = System.nanoTime() + 240_000_000_000L;
        while (System.nanoTime() < deadline) {
            state = api.call("GET", "/v1/recordings/" + job, m.host.token, null, null).body();
            String s = state.path("state").asText();
            if (s.equals("ready") || s.equals("partial") || s.equals("failed")) break;
            Api.sleep(1000);
        }
        recordings.judge(job, state, manifest(job));
        ChaosPlatform.log("  recording %s ended %s, missing %s", job.substring(0, 8), state.path("state").asText(), state.path("missing_ranges"));
    }

    private JsonNode manifest(String job) {
        try (S3Client client = S3Client.builder().endpointOverride(platform.s3.endpointUri()).region(Region.of(platform.s3.region()))
            .httpClient(UrlConnectionHttpClient.create())
            .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(platform.s3.accessKey(), platform.s3.secretKey())))
            .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(true).build())
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED).build()) {
            String key = client.listObjectsV2(l -> l.bucket(platform.s3.bucket()).prefix(job + "/manifest/")).contents().stream()
                .map(o -> o.key()).sorted().reduce((a, b) -> b).orElse(null);
            return key == null ? null : Api.JSON.readTree(client.getObjectAsBytes(g -> g.bucket(platform.s3.bucket()).key(key)).asByteArray());
        } catch (Exception e) {
            return null;
        }
    }

    // ------------------------------------------------------------------ media flow

    /** Every participant the invariants watch, per meeting (removed victims included). */
    Map<String, List<String>> everyone() {
        Map<String, List<String>> out = new LinkedHashMap<>();
        if (browsers != null && browsers.meetingId != null) out.put(browsers.meetingId, browsers.pids());
        if (fleet != null) {
            for (LoadFleet.Meeting m : fleet.meetings) {
                out.put(m.id, m.members.stream().map(p -> p.pid).filter(p -> p != null).toList());
            }
        }
        return out;
    }

    /** The participants whose media must flow, per meeting (victims whose removal was issued left out). */
    Map<String, List<String>> active() {
        Map<String, List<String>> out = new LinkedHashMap<>();
        if (browsers != null && browsers.meetingId != null && browsers.hostPid != null) out.put(browsers.meetingId, browsers.pids());
        if (fleet != null) {
            for (LoadFleet.Meeting m : fleet.meetings) {
                out.put(m.id, m.members.stream().map(p -> p.pid).filter(p -> p != null && !removalIssued.contains(p)).toList());
            }
        }
        return out;
    }

    private boolean flowingFor(String meeting, long sinceNanos, long forNanos) {
        List<long[]> s = observer.flow.getOrDefault(meeting, List.of());
        long now = System.nanoTime();
        boolean any = false;
        for (int i = s.size() - 1; i >= 0; i--) {
            long[] x = s.get(i);
            if (x[0] < now - forNanos || x[0] < sinceNanos) break;
            if (x[1] == 0) return false;
            any = true;
        }
        // and the window is long enough: some sample older than now - forNanos after sinceNanos, or forNanos passed
        return any && now - Math.max(sinceNanos, lastStop(s)) >= forNanos;
    }

    private static long lastStop(List<long[]> s) {
        for (int i = s.size() - 1; i >= 0; i--) if (s.get(i)[1] == 0) return s.get(i)[0];
        return 0;
    }

    private boolean awaitSteady(long ms) {
        long deadline = System.nanoTime() + ms * 1_000_000L;
        long since = System.nanoTime();
        while (System.nanoTime() < deadline) {
            boolean all = true;
            for (String m : active().keySet()) all &= flowingFor(m, 0, 1_500_000_000L);
            if (all) return true;
            Api.sleep(200);
        }
        return false;
    }

    /**
     * At least {@code MIN_OBSERVE_MS} after {@code healNanos} (a kill shows only once grants expire, ≤ 3 s, and
     * clients notice, ≤ 3 s more), then until every meeting has flowed for 2 s, or the bound (+ 3 s) has passed.
     */
    private void awaitBack(long healNanos) {
        long deadline = healNanos + (MEDIA_BACK_BOUND_MS + 3000) * 1_000_000L;
        long earliest = healNanos + MIN_OBSERVE_MS * 1_000_000L;
        while (System.nanoTime() < deadline) {
            if (System.nanoTime() < earliest) {
                Api.sleep(200);
                continue;
            }
            boolean all = true;
            for (String m : active().keySet()) all &= flowingFor(m, healNanos, 2_000_000_000L);
            if (all) return;
            Api.sleep(200);
        }
    }

    private String flowReport() {
        StringBuilder sb = new StringBuilder();
        long now = System.nanoTime();
        active().forEach((m, pids) -> {
            sb.append("\n  ").append(m, 0, 8).append(':');
            for (String s : pids) for (String p : pids) {
                if (s.equals(p)) continue;
                long li = ledger.lastIncrease(m, s, p);
                sb.append(' ').append(s, 0, 4).append("<-").append(p, 0, 4).append('=')
                    .append(li == 0 ? "never" : (now - li) / 1_000_000 + "ms");
            }
        });
        return sb + "\n  " + fleetReport();
    }

    private String fleetReport() {
        StringBuilder sb = new StringBuilder();
        for (LoadParticipant p : fleet.all()) sb.append(p.describe()).append("\n  ");
        return sb.toString();
    }

    private void phase(String p) {
        for (Invariant i : invariants) i.phase(p);
    }

    // ------------------------------------------------------------------ cleanup and baseline

    private void cleanup() throws Exception {
        phase("cleanup");
        ChaosPlatform.log("cleanup: ending every meeting");
        List<CompletableFuture<CommandsExactlyOnce.Issued>> ends = new ArrayList<>();
        for (LoadFleet.Meeting m : fleet.meetings) ends.add(issueAsync(m.id, m.host.token, body("end_meeting")));
        if (browsers.hostToken != null) ends.add(issueAsync(browsers.meetingId, browsers.hostToken, body("end_meeting")));
        for (CompletableFuture<CommandsExactlyOnce.Issued> e : ends) e.get(90, TimeUnit.SECONDS);
        fleet.close();
        browsers.close();
        long deadline = System.nanoTime() + 60_000_000_000L;
        Map<String, Long> now = counts();
        while (!resources.atBaseline(now) && System.nanoTime() < deadline) {
            Api.sleep(1000);
            now = counts();
        }
        resources.judge(now);
        ChaosPlatform.log("after cleanup %s (baseline %s); TURN allocations created %s, expired %s, postgres connections %d",
            now, resources.baseline(), resourceCounts.turnMetric("parley_turn_allocations_created_total"),
            resourceCounts.turnMetric("parley_turn_allocations_expired_total"), resourceCounts.pgCount(""));
        deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline && pendingCommands() > 0) Api.sleep(500);
        Connection c = observer.pg();
        if (c != null) commands.checkFinal(c);
    }

    private long pendingCommands() {
        try {
            Connection c = observer.pg();
            if (c == null) return 1;
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM commands WHERE media_enforcement = 'pending'")) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (Exception e) {
            return 1;
        }
    }

    /** The counted resources right now. */
    Map<String, Long> counts() {
        return resourceCounts.counts();
    }

    // ------------------------------------------------------------------ result

    Result result() throws Exception {
        StringBuilder sb = new StringBuilder();
        sb.append("| fault | trials | media back p50/p95/max (ms) | invariant violations |\n|---|---|---|---|\n");
        Map<String, List<Long>> times = mediaBack.times();
        for (Map.Entry<String, String> f : faultDescriptions.entrySet()) {
            List<Long> t = new ArrayList<>(times.getOrDefault(f.getKey(), List.of()));
            t.sort(null);
            long v = 0;
            for (Invariant i : invariants) v += i.byPhase().getOrDefault(f.getKey(), new long[2])[1];
            sb.append("| ").append(f.getValue()).append(" | ").append(trialsPerFault.get(f.getKey())).append(" | ")
                .append(t.isEmpty() ? "-" : pct(t, 50) + " / " + pct(t, 95) + " / " + t.get(t.size() - 1))
                .append(" (").append(t.size()).append(" interrupted, ").append(mediaBack.untouched(f.getKey()))
                .append(" not) | ").append(v).append(" |\n");
        }
        sb.append("\n| invariant | checks | violations |\n|---|---|---|\n");
        int held = 0, checked = 0;
        for (Invariant i : invariants) {
            if (i.checks() == 0) continue;
            checked++;
            if (i.violations() == 0) held++;
            sb.append("| ").append(i.name).append(" | ").append(i.checks()).append(" | ").append(i.violations()).append(" |\n");
        }
        for (Invariant i : invariants) {
            for (String e : i.examples()) sb.append("\nviolation of ").append(i.name).append(": ").append(e);
        }
        sb.append("\n\nbaseline ").append(resources.baseline()).append("\nafter cleanup ").append(resources.lastCounts()).append('\n');
        Result r = new Result(held, checked, sb.toString());
        Files.createDirectories(outDir);
        Files.writeString(outDir.resolve(full ? "summary-full.md" : "summary-quick.md"), r.report() + "\n" + r.lastLine() + "\n");
        return r;
    }

    private static long pct(List<Long> sorted, int p) {
        return sorted.get((int) Math.ceil(p / 100.0 * sorted.size()) - 1);
    }

    @Override
    public void close() {
        if (observer != null) observer.close();
        if (fleet != null) fleet.close();
        if (browsers != null) browsers.close();
        if (platform != null) platform.close();
    }

    /** Runs a whole chaos run, prints the report and, as the last line, the invariant count. */
    static Result runAndPrint(boolean full, Path outDir) throws Exception {
        try (ChaosRun run = new ChaosRun(full, outDir)) {
            Result r = run.execute();
            System.out.println(r.report());
            System.out.println(r.lastLine());
            return r;
        }
    }
}
