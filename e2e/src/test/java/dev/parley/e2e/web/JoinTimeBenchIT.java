package dev.parley.e2e.web;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.Playwright;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The time-to-join benchmark (bench/join/README.md, issue #19): N joins (default 20) of a headless Chromium participant
 * into a meeting with one publisher, on this tree's jars and, side by side in the same run, on an older build's jars
 * ({@code -Dparley.bench.join.oldControllerJar} / {@code oldSfuJar}; bench/join/run.sh builds them). Joins alternate
 * between the builds (ABBA) so load on this shared machine falls on both alike. Each build gets one warm-up join first
 * (a fresh JVM's first DTLS handshake and class loading), printed but not counted. Prints the SDK's per-step timeline
 * (p50/p95) and the probe's totals per build, and a last line with the ratios. A benchmark: runs only with
 * {@code -Dparley.bench.join=true}.
 */
class JoinTimeBenchIT {

    @Test
    void joinTimeOfThisBuildBesideTheOldOne() throws Exception {
        assumeTrue(Boolean.getBoolean("parley.bench.join"), "a benchmark: run with -Dparley.bench.join=true (bench/join/run.sh)");
        String missing = LocalPlatform.missing(1);
        assumeTrue(missing == null, missing);
        int n = Integer.getInteger("parley.bench.join.count", 20);
        String oldController = System.getProperty("parley.bench.join.oldControllerJar", "");
        String oldSfu = System.getProperty("parley.bench.join.oldSfuJar", "");
        boolean withOld = !oldController.isBlank() && !oldSfu.isBlank();
        if (withOld) assertThat(Path.of(oldController)).as("old controller jar").isRegularFile();
        if (withOld) assertThat(Path.of(oldSfu)).as("old SFU jar").isRegularFile();
        String loadBefore = loadAverage();
        Map<String, LocalPlatform> platforms = new LinkedHashMap<>();
        Map<String, String> links = new LinkedHashMap<>();
        Map<String, List<JoinTimes.Join>> joins = new LinkedHashMap<>();
        List<BrowserParticipant> hosts = new ArrayList<>();
        try (Playwright pw = Playwright.create(); Browser browser = Chromium.launch(pw)) {
            try {
                platforms.put("new", LocalPlatform.start(1));
                if (withOld) platforms.put("old", LocalPlatform.start(1, Map.of(), Path.of(oldController), Path.of(oldSfu), Path.of("target", "platform-logs", "old")));
                for (Map.Entry<String, LocalPlatform> e : platforms.entrySet()) {
                    BrowserParticipant host = new BrowserParticipant(browser, e.getValue().baseUrl(), "Pia Publisher " + e.getKey());
                    hosts.add(host);
                    links.put(e.getKey(), host.createAndJoin("Join time " + e.getKey()));
                    host.awaitConnected(java.time.Duration.ofSeconds(30));
                    JoinTimes.Join warm = JoinTimes.joinOnce(browser, e.getValue().baseUrl(), links.get(e.getKey()), "Warm-up " + e.getKey(), e.getKey());
                    System.out.printf("join time [%s] warm-up join (fresh processes): %.0f ms%n", e.getKey(), warm.probeMs());
                    joins.put(e.getKey(), new ArrayList<>());
                }
                List<String> order = new ArrayList<>(platforms.keySet());
                for (int i = 0; i < n; i++) {
                    List<String> round = i % 2 == 0 ? order : order.reversed();   // ABBA
                    for (String build : round) {
                        JoinTimes.Join j = JoinTimes.joinOnce(browser, platforms.get(build).baseUrl(), links.get(build), "Joiner " + build + " " + i, build);
                        joins.get(build).add(j);
                        System.out.printf("join time [%s] #%d: %.0f ms%s%n", build, i, j.probeMs(),
                                j.timeline() == null ? "" : " " + j.timeline().path("steps"));
                    }
                }
            } finally {
                for (BrowserParticipant h : hosts) h.close();
                for (LocalPlatform p : platforms.values()) p.close();
            }
        }
        for (Map.Entry<String, List<JoinTimes.Join>> e : joins.entrySet()) System.out.print(JoinTimes.report(e.getKey(), e.getValue()));
        List<Double> fresh = joins.get("new").stream().map(JoinTimes.Join::probeMs).toList();
        StringBuilder last = new StringBuilder(String.format("join time: new p50 %.0f ms p95 %.0f ms",
                JoinTimes.percentile(fresh, .5), JoinTimes.percentile(fresh, .95)));
        if (withOld) {
            List<Double> old = joins.get("old").stream().map(JoinTimes.Join::probeMs).toList();
            last.append(String.format("; old p50 %.0f ms p95 %.0f ms; new/old p50 %.2f p95 %.2f",
                    JoinTimes.percentile(old, .5), JoinTimes.percentile(old, .95),
                    JoinTimes.percentile(fresh, .5) / JoinTimes.percentile(old, .5), JoinTimes.percentile(fresh, .95) / JoinTimes.percentile(old, .95)));
        }
        last.append(String.format(" (%d joins each; load average %s before, %s after)", n, loadBefore, loadAverage()));
        System.out.println(last);
        assertThat(fresh).hasSize(n);
    }

    private static String loadAverage() {
        try {
            return String.join(" ", List.of(Files.readString(Path.of("/proc/loadavg")).split(" ")).subList(0, 3));
        } catch (Exception e) {
            return "?";
        }
    }
}
