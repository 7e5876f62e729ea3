package dev.parley.bench.roster;

import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * Signaling cost of one large meeting on the real controller (issue 18, "Signaling at O(N)"): N participants join
 * over REST and open their signaling sockets; then (a) steady state: nobody joins, every socket's received bytes
 * and messages are counted; (b) a join storm of {@code rate} joins/s into the full meeting for {@code stormSeconds},
 * counted on the N resident sockets (the newcomers' own sockets are counted apart); (c) the controller's CPU
 * per second of each phase from {@code /proc}. One summary line per phase. Before (a) every resident shows the
 * People panel's first page: it sends {@code roster_page} with the 50 lowest resident ids (the order of
 * {@code GET …/participants}); a controller without the paged roster answers {@code unknown_message} once.
 *
 * <p>Usage: {@code SignalingStorm controllerJar [participants=1000] [steadySeconds=30] [stormRate=100]
 * [stormSeconds=10]}.
 */
public final class SignalingStorm {
    private SignalingStorm() {
    }

    public static void main(String[] args) {
        try {
            run(args);
        } catch (Throwable t) {
            System.out.println("benchmark failed: " + t);
            t.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }

    static void run(String[] args) throws Exception {
        ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME))
                .setLevel(ch.qos.logback.classic.Level.WARN);
        Path jar = Path.of(args.length > 0 ? args[0] : "controller-pod/target/controller-pod.jar");
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        int steadySeconds = args.length > 2 ? Integer.parseInt(args[2]) : 30;
        int rate = args.length > 3 ? Integer.parseInt(args[3]) : 100;
        int stormSeconds = args.length > 4 ? Integer.parseInt(args[4]) : 10;
        if (!Files.exists(jar)) {
            throw new IllegalArgumentException("controller jar not found: " + jar);
        }
        try (StormController controller = new StormController(jar)) {
            StormClient client = new StormClient(controller.base, StormController.JWT_SECRET);
            String meeting = client.createMeeting(Math.min(10000, n + rate * stormSeconds + 10));
            StormClient.Group residents = new StormClient.Group();
            StormClient.Group newcomers = new StormClient.Group();
            List<WebSocket> sockets = Collections.synchronizedList(new ArrayList<>());
            try (var pinger = Executors.newSingleThreadScheduledExecutor()) {
                // as the SDK: a ping every 10 s from the start (a silent socket is closed as a ghost)
                pinger.scheduleAtFixedRate(() -> ping(sockets), 5, 10, TimeUnit.SECONDS);
                long t0 = System.nanoTime();
                List<String> ids = joinAll(client, meeting, n, residents, sockets);
                System.out.printf("setup: %d participants joined with open sockets in %.1f s (controller log %s)%n",
                        n, (System.nanoTime() - t0) / 1e9, controller.log);
                showFirstPage(ids, sockets);
                Thread.sleep(3000); // the last joins' events settle
                residents.reset();
                long cpu0 = controller.cpuMillis();
                long s0 = System.nanoTime();
                Thread.sleep(steadySeconds * 1000L);
                report("steady", n, residents, (System.nanoTime() - s0) / 1e9, controller.cpuMillis() - cpu0, "");

                residents.reset();
                cpu0 = controller.cpuMillis();
                s0 = System.nanoTime();
                int joined = storm(client, meeting, n, rate, stormSeconds, newcomers, sockets);
                double stormWall = (System.nanoTime() - s0) / 1e9;
                report("storm", n, residents, stormWall, controller.cpuMillis() - cpu0,
                        String.format(" [%d joins in %.1f s = %.1f joins/s; per join per resident socket %.1f B and %.3f msg;"
                                        + " newcomers' sockets got %.0f B each]",
                                joined, stormWall, joined / stormWall,
                                residents.bytes.sum() / (double) n / Math.max(1, joined),
                                residents.messages.sum() / (double) n / Math.max(1, joined),
                                newcomers.bytes.sum() / (double) Math.max(1, joined)));
                pinger.shutdownNow();
            }
            for (WebSocket ws : sockets) {
                ws.abort();
            }
        }
    }

    /** Every resident watches the first roster page (the 50 lowest ids), as the People panel of the web app does. */
    private static void showFirstPage(List<String> ids, List<WebSocket> sockets) {
        String page = ids.stream().sorted().limit(50).map(id -> "\"" + id + "\"").collect(Collectors.joining(","));
        String msg = "{\"type\":\"roster_page\",\"participant_ids\":[" + page + "]}";
        List<WebSocket> copy;
        synchronized (sockets) {
            copy = new ArrayList<>(sockets);
        }
        for (WebSocket ws : copy) {
            ws.sendText(msg, true);
        }
    }

    private static List<String> joinAll(StormClient client, String meeting, int n, StormClient.Group group,
                                List<WebSocket> sockets) throws Exception {
        List<String> ids = Collections.synchronizedList(new ArrayList<>());
        Semaphore inFlight = new Semaphore(16);
        try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> all = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int index = i;
                inFlight.acquire();
                all.add(ex.submit(() -> {
                    try {
                        StormClient.Joined j = client.join(meeting, index, group);
                        sockets.add(j.ws());
                        ids.add(j.participantId());
                    } finally {
                        inFlight.release();
                    }
                    return null;
                }));
            }
            for (Future<?> f : all) {
                f.get();
            }
        }
        return ids;
    }

    /** {@code rate} joins/s started on schedule for {@code seconds}; returns how many completed. */
    private static int storm(StormClient client, String meeting, int first, int rate, int seconds,
                             StormClient.Group group, List<WebSocket> sockets) throws Exception {
        AtomicInteger done = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        // at most 32 joins in flight: a slower controller lowers the rate reached (reported) instead of
        // exhausting its database connections
        Semaphore inFlight = new Semaphore(32);
        long start = System.nanoTime();
        long periodNanos = 1_000_000_000L / rate;
        try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < rate * seconds; i++) {
                long due = start + i * periodNanos;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                int index = first + i;
                inFlight.acquire();
                ex.submit(() -> {
                    try {
                        sockets.add(client.join(meeting, index, group).ws());
                        done.incrementAndGet();
                    } catch (Exception e) {
                        if (failed.incrementAndGet() <= 3) {
                            System.out.println("storm join failed: " + e);
                        }
                    } finally {
                        inFlight.release();
                    }
                });
            }
        }
        if (failed.get() > 0) {
            System.out.println("storm joins failed: " + failed.get());
        }
        return done.get();
    }

    private static void ping(List<WebSocket> sockets) {
        List<WebSocket> copy;
        synchronized (sockets) {
            copy = new ArrayList<>(sockets);
        }
        for (WebSocket ws : copy) {
            ws.sendText("{\"type\":\"ping\",\"ts\":" + System.currentTimeMillis() + "}", true);
        }
    }

    private static void report(String phase, int n, StormClient.Group g, double seconds, long cpuMillis, String extra) {
        double bytes = g.bytes.sum() / (double) n / seconds;
        double msgs = g.messages.sum() / (double) n / seconds;
        String types = g.byType.entrySet().stream()
                .sorted(Map.Entry.<String, java.util.concurrent.atomic.LongAdder>comparingByValue(
                        (a, b) -> Long.compare(b.sum(), a.sum())))
                .limit(6).map(e -> e.getKey() + "=" + e.getValue().sum()).collect(Collectors.joining(" "));
        System.out.printf("%s: N=%d, %.1f s: %.0f B/s and %.2f msg/s per participant; controller CPU %.0f ms/s; "
                        + "load %s; messages by type: %s%s%n", phase, n, seconds, bytes, msgs, cpuMillis / seconds,
                loadAverage(), types, extra);
    }

    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0] + "/" + f[1] + "/" + f[2];
        } catch (java.io.IOException e) {
            return "?";
        }
    }
}
