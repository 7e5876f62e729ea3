package dev.parley.bench.large;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One meeting of {@code participants} people on the local platform with real parts (issue 18's load run; issue
 * 17's "many subscribers over several SFU processes" with the same driver): the controller jar with etcd and
 * embedded PostgreSQL, {@code sfus} SFU processes in regions r0.. joined by the controller's relays. Participants
 * join as the SDK does ({@link Participant}): the first {@code cameras} publish three-layer simulcast video, the
 * next {@code microphones} publish audio (three of them talking at a time, the talkers changing every 4 s), the
 * rest only receive. Everyone subscribes: N audio slots (the meeting's {@code audio_top_n}), the SDK's 16 video
 * slots, and a viewport of its page of video ({@code page} remote tiles in join order; participants alternate
 * between page 1 and page 2) at the low layer's size. Then a steady window and a join storm, each reporting SFU
 * egress packets/s per SFU, controller CPU per second, signaling bytes per participant per second and the check
 * of what every receiver got (and what the SFUs hold for it). See bench/large/README.md.
 *
 * <p>Arguments {@code name=value}: participants (1000), cameras (10), microphones (30), sfus (3), topn (3),
 * page (6), pace (1: real packet rates; k divides every rate), steady (20 s), rate (100 joins/s), storm (3 s),
 * inflight (32 joins at once in the storm), setup (8 joins at once before), controller, sfu (jars), logs.
 */
public final class LargeMeeting {
    private static final int VIDEO_SLOTS = 16;                 // the SDK: remote count + 1 rounded up to 4, at most 16
    private static final int TILE_W = 320, TILE_H = 180, TILE_FPS = 15;   // the low simulcast layer

    private LargeMeeting() {
    }

    public static void main(String[] args) {
        try {
            run(args);
        } catch (Throwable t) {
            System.out.println("benchmark failed: " + t);
            t.printStackTrace(System.out);
            System.exit(1);
        }
        System.exit(0);
    }

    private static void run(String[] args) throws Exception {
        ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME))
                .setLevel(ch.qos.logback.classic.Level.WARN);
        Map<String, String> o = new HashMap<>();
        for (String a : args) {
            int eq = a.indexOf('=');
            if (eq > 0) o.put(a.substring(0, eq), a.substring(eq + 1));
        }
        int n = num(o, "participants", 1000), cameras = num(o, "cameras", 10), mics = num(o, "microphones", 30);
        int sfus = num(o, "sfus", 3), topN = num(o, "topn", 3), pageSize = num(o, "page", 6), pace = num(o, "pace", 1);
        int steady = num(o, "steady", 20), rate = num(o, "rate", 100), stormSeconds = num(o, "storm", 3);
        int inflight = num(o, "inflight", 32), setupInflight = num(o, "setup", 8);
        // audio slots beyond N (an older client's, which the SFU must leave empty): without them a receiver could not
        // show more than N audio streams, so the check could not fail; the SDK offers exactly N
        int extraAudio = num(o, "extraaudio", 2);
        // viewport=0: nobody sends its viewport (an app that never calls setViewport gets every video): the check
        // must then report violations, which shows it can fail
        boolean viewport = num(o, "viewport", 1) != 0;
        int pages = num(o, "pages", 2);          // participants spread over pages 1..pages (pages=1: everyone on page 1)
        Path controllerJar = Path.of(o.getOrDefault("controller", "controller-pod/target/controller-pod.jar"));
        Path sfuJar = Path.of(o.getOrDefault("sfu", "sfu-pod/target/sfu-pod.jar"));
        Path logs = Path.of(o.getOrDefault("logs", "target/large-logs"));
        if (!Files.exists(controllerJar) || !Files.exists(sfuJar)) throw new IllegalArgumentException("jars not built");
        int stormJoins = rate * stormSeconds;
        System.out.printf("config: %d participants (%d cameras, %d microphones), %d SFUs, N=%d (+%d audio slots offered), page %d%s, pace 1/%d, steady %d s,"
                        + " storm %d joins at %d/s, load %s%n", n, cameras, mics, sfus, topN, extraAudio, pageSize, viewport ? "" : " (no viewport sent)", pace, steady, stormJoins, rate, load());

        long tStart = System.nanoTime();
        try (Platform platform = new Platform(controllerJar, sfuJar, sfus, o.getOrDefault("sfuheap", "4g"), logs);
             ScheduledExecutorService keepalive = Executors.newSingleThreadScheduledExecutor()) {
            Api api = new Api(platform.base, Platform.JWT_SECRET);
            String meeting = api.createMeeting(Math.min(10000, n + stormJoins + 10), topN);
            System.out.printf("platform up in %.1f s: controller %s, SFUs %s, logs %s%n", (System.nanoTime() - tStart) / 1e9,
                    platform.base, platform.sfus.stream().map(s -> s.pod() + "/" + s.region()).toList(), logs);
            Participant.Counter residentCounter = new Participant.Counter(), newcomerCounter = new Participant.Counter();
            List<Participant> everyone = new CopyOnWriteArrayList<>();
            List<MediaPublisher> publishers = new CopyOnWriteArrayList<>();
            Map<String, Participant> byPid = new ConcurrentHashMap<>();
            List<String> cameraPids = Collections.synchronizedList(new ArrayList<>());
            String[] order = new String[n + stormJoins];
            AtomicBoolean running = new AtomicBoolean(true);
            Thread clock = Thread.ofPlatform().daemon().name("large-media-clock").start(() -> mediaClock(publishers, running));
            keepalive.scheduleAtFixedRate(new Keepalive(everyone), 1, 1, TimeUnit.SECONDS);

            Joiner joiner = new Joiner(api, meeting, viewport, pages, pace, sfus, topN, extraAudio, pageSize, cameras, mics, order, cameraPids, everyone,
                    publishers, byPid);
            long s0 = System.nanoTime();
            joiner.joinAll(0, cameras, 4, residentCounter);             // cameras first: they are page 1 in join order
            joiner.rewatch();                                              // as the SDK on each later track_published
            joiner.joinAll(cameras, n, setupInflight, residentCounter);
            System.out.printf("setup: %d participants joined with media in %.1f s (%d failed), load %s%n", everyone.size(),
                    (System.nanoTime() - s0) / 1e9, joiner.failed.get(), load());
            Thread.sleep(5000);                                            // last keyframes, slot events settle

            List<Participant> residents = List.copyOf(everyone);
            Window w = Window.open("steady", platform, residents, residentCounter, topN);
            Thread.sleep(steady * 1000L);
            Window.Figures st = w.close();
            print(st, topN, pageSize);
            SfuStateCheck.Result stState = SfuStateCheck.run("steady", platform, meeting, byPid, topN);
            printState("steady", stState);

            Window.Figures sf = null;   // storm=0: no storm window (its rates over ~0 s would be meaningless)
            int joined = 0;
            double reached = 0;
            if (stormJoins > 0) {
                w = Window.open("storm", platform, residents, residentCounter, topN);
                long storm0 = System.nanoTime();
                joined = joiner.storm(n, stormJoins, rate, inflight, newcomerCounter);
                double stormWall = (System.nanoTime() - storm0) / 1e9;
                sf = w.close();
                print(sf, topN, pageSize);
                reached = joined / stormWall;
                System.out.printf("storm: %d of %d joins (with media) in %.1f s = %.1f joins/s reached (asked %d/s, at most %d in flight);"
                                + " newcomers' sockets got %.0f B each%n", joined, stormJoins, stormWall, reached, rate, inflight,
                        newcomerCounter.bytes.sum() / (double) Math.max(1, joined));
            } else {
                System.out.println("storm: none (storm=0)");
            }
            Thread.sleep(3000);
            List<Participant> all = List.copyOf(everyone);
            Participant.Counter after = new Participant.Counter();
            for (Participant p : all) p.counter = after;
            w = Window.open("after-storm", platform, all, after, topN);
            Thread.sleep(Math.max(5, steady / 2) * 1000L);
            Window.Figures af = w.close();
            print(af, topN, pageSize);
            SfuStateCheck.Result afState = SfuStateCheck.run("after-storm", platform, meeting, byPid, topN);
            printState("after-storm", afState);
            System.out.println("drops: " + Window.drops(platform));
            System.out.println("client errors: " + Participant.Errors.SEEN);

            int violations = st.violations().size() + (sf == null ? 0 : sf.violations().size()) + af.violations().size()
                    + stState.violations().size() + afState.violations().size();
            int maxA = Math.max(Math.max(st.maxAudio(), sf == null ? 0 : sf.maxAudio()), Math.max(af.maxAudio(), Math.max(stState.maxAudio(), afState.maxAudio())));
            int maxV = Math.max(Math.max(st.maxVideo(), sf == null ? 0 : sf.maxVideo()), Math.max(af.maxVideo(), Math.max(stState.maxVideo(), afState.maxVideo())));
            running.set(false);
            clock.join(2000);
            System.out.printf("large meeting: %d participants (%d with media, +%d storm joins), %.0f B/s signaling per participant steady,"
                            + " %.0f B/s storm (%.1f joins/s reached), max audio streams per receiver %d (N=%d),"
                            + " max videos per receiver %d (page %d), violations %d%n",
                    n, residents.size(), joined, st.signalingBytesPerParticipant(), sf == null ? 0 : sf.signalingBytesPerParticipant(), reached,
                    maxA, topN, maxV, pageSize, violations);
            for (Participant p : everyone) p.close();
        }
    }

    private static void print(Window.Figures f, int topN, int pageSize) {
        System.out.println(Window.format(f, topN, pageSize));
        for (String l : f.sfuLines()) System.out.println("  " + f.phase() + " " + l);
        f.violations().stream().limit(20).forEach(v -> System.out.println("  VIOLATION " + v));
    }

    private static void printState(String phase, SfuStateCheck.Result r) {
        System.out.printf("%s SFU state: %d subscribers checked, max audio slots held %d, max video slots held %d, violations %d%n",
                phase, r.subscribers(), r.maxAudio(), r.maxVideo(), r.violations().size());
        r.violations().stream().limit(20).forEach(v -> System.out.println("  VIOLATION " + v));
    }

    /** Every publisher on one 10 ms clock; the three talkers among the microphones change every 4 s. */
    private static void mediaClock(List<MediaPublisher> publishers, AtomicBoolean running) {
        long tick = 0, next = System.nanoTime();
        while (running.get()) {
            int mic = 0;
            long turn = tick / 400;
            List<MediaPublisher> mics = new ArrayList<>();
            for (MediaPublisher p : publishers) if (!p.video) mics.add(p);
            int m = mics.size();
            for (MediaPublisher p : mics) {
                int slot = (int) ((mic - 3 * turn) % Math.max(1, m) + m) % Math.max(1, m);
                p.level = slot < 3 ? 20 + 10 * slot : 110;       // talkers loud and distinct, the rest quiet
                mic++;
            }
            for (MediaPublisher p : publishers) {
                try {
                    p.tick(tick);
                } catch (RuntimeException e) {
                    // a closed transport
                }
            }
            tick++;
            next += 10_000_000L;
            long sleep = next - System.nanoTime();
            if (sleep > 0) java.util.concurrent.locks.LockSupport.parkNanos(sleep);
            else if (sleep < -1_000_000_000L) next = System.nanoTime();   // far behind: do not burst to catch up
        }
    }

    /** Pings every 10 s and ICE consent checks every 5 s, each participant at its own second. */
    private record Keepalive(List<Participant> everyone) implements Runnable {
        private static final AtomicInteger SECOND = new AtomicInteger();

        @Override
        public void run() {
            int s = SECOND.incrementAndGet();
            for (Participant p : everyone) {
                try {
                    if (p.index % 10 == s % 10) p.ping();
                    if (p.index % 5 == s % 5) p.consent();
                } catch (RuntimeException e) {
                    // a socket closing
                }
            }
        }
    }

    /** Joins participants (setup at bounded concurrency, the storm at a rate) and sets each one's page. */
    private static final class Joiner {
        final AtomicInteger failed = new AtomicInteger();
        private final Api api;
        private final String meeting;
        private final boolean viewport;
        private final int pages;
        private final int pace, sfus, topN, extraAudio, pageSize, cameras, mics;
        private final String[] order;
        private final List<String> cameraPids;
        private final List<Participant> everyone;
        private final List<MediaPublisher> publishers;
        private final Map<String, Participant> byPid;

        Joiner(Api api, String meeting, boolean viewport, int pages, int pace, int sfus, int topN, int extraAudio, int pageSize, int cameras, int mics, String[] order,
               List<String> cameraPids, List<Participant> everyone, List<MediaPublisher> publishers,
               Map<String, Participant> byPid) {
            this.api = api;
            this.meeting = meeting;
            this.viewport = viewport;
            this.pages = Math.max(1, pages);
            this.pace = pace;
            this.sfus = sfus;
            this.topN = topN;
            this.extraAudio = extraAudio;
            this.pageSize = pageSize;
            this.cameras = cameras;
            this.mics = mics;
            this.order = order;
            this.cameraPids = cameraPids;
            this.everyone = everyone;
            this.publishers = publishers;
            this.byPid = byPid;
        }

        void joinAll(int from, int to, int parallel, Participant.Counter counter) throws Exception {
            Semaphore gate = new Semaphore(parallel);
            List<Future<?>> fs = new ArrayList<>();
            try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int i = from; i < to; i++) {
                    int index = i;
                    gate.acquire();
                    fs.add(ex.submit(() -> {
                        try {
                            one(index, counter);
                        } finally {
                            gate.release();
                        }
                        return null;
                    }));
                    if ((i + 1) % 100 == 0) System.out.printf("  %d joined, load %s%n", i + 1, load());
                }
            }
        }

        /** Every participant so far: its page again and a viewport naming every camera (the later ones too). */
        void rewatch() throws Exception {
            for (Participant p : everyone) {
                p.page = pageOf(p.index);
                if (viewport) p.watch(List.copyOf(cameraPids), TILE_W, TILE_H, TILE_FPS);
            }
        }

        /** {@code count} joins at {@code rate}/s with at most {@code parallel} in flight; returns how many joined. */
        int storm(int first, int count, int rate, int parallel, Participant.Counter counter) throws Exception {
            Semaphore gate = new Semaphore(parallel);
            AtomicInteger done = new AtomicInteger();
            long start = System.nanoTime(), period = 1_000_000_000L / Math.max(1, rate);
            try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int i = 0; i < count; i++) {
                    long wait = start + i * period - System.nanoTime();
                    if (wait > 0) TimeUnit.NANOSECONDS.sleep(wait);
                    int index = first + i;
                    gate.acquire();
                    ex.submit(() -> {
                        try {
                            if (one(index, counter)) done.incrementAndGet();
                        } finally {
                            gate.release();
                        }
                    });
                }
            }
            return done.get();
        }

        private boolean one(int index, Participant.Counter counter) {
            Participant.Role role = index < cameras ? Participant.Role.CAMERA
                    : index < cameras + mics ? Participant.Role.MICROPHONE : Participant.Role.RECEIVER;
            Participant p = new Participant(index, role, "r" + (index % sfus), counter, topN + extraAudio, VIDEO_SLOTS);
            try {
                p.join(api, meeting, pace);
                order[index] = p.pid;
                if (role == Participant.Role.CAMERA) cameraPids.add(p.pid);
                p.page = pageOf(index);
                byPid.put(p.pid, p);
                everyone.add(p);
                if (p.publisher != null) publishers.add(p.publisher);
                if (viewport) p.watch(List.copyOf(cameraPids), TILE_W, TILE_H, TILE_FPS);
                return true;
            } catch (Exception e) {
                if (failed.incrementAndGet() <= 5) System.out.println("join " + index + " failed: " + e);
                p.close();
                return false;
            }
        }

        /**
         * The cameras on this participant's page: remote participants in join order (the app's order), page 1 or 2 of
         * {@code pageSize} tiles (participants alternate). Only the first two pages matter, and they are the first
         * joiners, whose ids are known by then.
         */
        private Set<String> pageOf(int index) {
            int page = index % pages;
            Set<String> cams = new HashSet<>(cameraPids);
            Set<String> r = new HashSet<>();
            int pos = 0;
            for (int i = 0; i < order.length && pos < (page + 1) * pageSize; i++) {
                if (i == index) continue;
                String id = order[i];
                if (id == null) continue;
                if (pos >= page * pageSize && cams.contains(id)) r.add(id);
                pos++;
            }
            return r;
        }
    }

    private static int num(Map<String, String> o, String k, int d) {
        return o.containsKey(k) ? Integer.parseInt(o.get(k)) : d;
    }

    static String load() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0] + "/" + f[1] + "/" + f[2];
        } catch (java.io.IOException e) {
            return "?";
        }
    }
}
