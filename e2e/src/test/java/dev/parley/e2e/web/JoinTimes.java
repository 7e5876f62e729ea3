package dev.parley.e2e.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.microsoft.playwright.Browser;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Time to join in headless Chromium (issue #19): one participant joins a meeting that already has a publisher, and
 * the time from "admitted" to its first decoded remote video frame is read twice, independently: from the SDK's own
 * join timeline ({@code client.joinTimeline()}, sdk/join-timeline.js, per step) and from a probe this class puts in
 * the page before the app loads, which polls the subscribe connection's stats itself. The probe needs only
 * {@code client.metrics.admittedAt} and {@code client.media.sub}, so it also times builds whose SDK has no timeline
 * (the old build of bench/join).
 */
final class JoinTimes {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Poll period of the probe (ms), like the SDK timeline's own. */
    static final int PROBE_MS = 15;
    private static final String PROBE = """
        (() => {
          const probe = window.__joinProbe = { admittedAt: null, firstDecodedAt: null };
          const tick = async () => {
            const c = window.parleyApp?.client;
            if (c?.metrics?.admittedAt && probe.admittedAt == null) probe.admittedAt = c.metrics.admittedAt;
            const sub = c?.media?.sub;
            if (sub && probe.admittedAt != null) {
              try {
                const asked = performance.now();
                (await sub.getStats()).forEach((s) => {
                  // the snapshot's own time (epoch ms in Chromium): getStats may resolve late on a busy machine
                  const at = s.timestamp > performance.timeOrigin ? s.timestamp - performance.timeOrigin : asked;
                  if (s.type === 'inbound-rtp' && s.kind === 'video' && s.framesDecoded > 0 && probe.firstDecodedAt == null) probe.firstDecodedAt = at;
                });
              } catch (e) { /* closed meanwhile */ }
            }
            if (probe.firstDecodedAt == null) setTimeout(tick, %d);
          };
          setTimeout(tick, %d);
        })();
        """.formatted(PROBE_MS, PROBE_MS);

    /** One join: the probe's total and, when the SDK has one, its timeline (null otherwise). */
    record Join(String build, double probeMs, JsonNode timeline) {
        Double stepAt(String step) {
            if (timeline == null) return null;
            for (JsonNode s : timeline.path("steps")) if (step.equals(s.path("step").asText()) && s.path("atMs").isNumber()) return s.path("atMs").asDouble();
            return null;
        }

        Double stepDelta(String step) {
            if (timeline == null) return null;
            for (JsonNode s : timeline.path("steps")) if (step.equals(s.path("step").asText()) && s.path("deltaMs").isNumber()) return s.path("deltaMs").asDouble();
            return null;
        }
    }

    private JoinTimes() {
    }

    /** Joins {@code link} as a new browser context, waits for the first decoded remote frame, leaves, closes. */
    static Join joinOnce(Browser browser, String baseUrl, String link, String name, String build) {
        try (BrowserParticipant p = new BrowserParticipant(browser, baseUrl, name, PROBE)) {
            p.join(link);
            BrowserParticipant.awaitTrue(() -> p.page.evaluate("() => window.__joinProbe?.firstDecodedAt != null").equals(true),
                    Duration.ofSeconds(30), name + " decodes a remote frame\n" + p.diagnostics());
            double probe = ((Number) p.page.evaluate("() => window.__joinProbe.firstDecodedAt - window.__joinProbe.admittedAt")).doubleValue();
            JsonNode timeline = null;
            if (Boolean.TRUE.equals(p.page.evaluate("() => typeof window.parleyApp.client.joinTimeline === 'function'"))) {
                // the SDK's poll may be one period behind the probe's
                BrowserParticipant.awaitTrue(() -> Boolean.TRUE.equals(p.page.evaluate("() => window.parleyApp.client.joinTimeline().complete")),
                        Duration.ofSeconds(5), name + " timeline complete: " + p.page.evaluate("() => JSON.stringify(window.parleyApp.client.joinTimeline())"));
                timeline = tree(p.page.evaluate("() => JSON.stringify(window.parleyApp.client.joinTimeline())"));
            }
            p.page.evaluate("() => window.parleyApp.client.leave()");
            return new Join(build, probe, timeline);
        }
    }

    static JsonNode tree(Object json) {
        try {
            return JSON.readTree(String.valueOf(json));
        } catch (Exception e) {
            throw new AssertionError("not JSON: " + json, e);
        }
    }

    /** Nearest-rank percentile of {@code v} (0 < q ≤ 1); NaN when empty. */
    static double percentile(List<Double> v, double q) {
        if (v.isEmpty()) return Double.NaN;
        List<Double> s = new ArrayList<>(v);
        s.sort(null);
        int rank = (int) Math.ceil(q * s.size());
        return s.get(Math.max(0, rank - 1));
    }

    /** Per step of the SDK timeline: p50/p95 of its delta and of its time after admitted; then the totals. */
    static String report(String build, List<Join> joins) {
        StringBuilder b = new StringBuilder();
        b.append(String.format("join time [%s] %d joins%n", build, joins.size()));
        Map<String, List<Double>> deltas = new LinkedHashMap<>(), ats = new LinkedHashMap<>();
        for (Join j : joins) {
            if (j.timeline == null) continue;
            for (JsonNode s : j.timeline.path("steps")) {
                String step = s.path("step").asText();
                if (s.path("deltaMs").isNumber()) deltas.computeIfAbsent(step, k -> new ArrayList<>()).add(s.path("deltaMs").asDouble());
                if (s.path("atMs").isNumber()) ats.computeIfAbsent(step, k -> new ArrayList<>()).add(s.path("atMs").asDouble());
            }
        }
        if (!ats.isEmpty()) {
            b.append(String.format("  %-20s %9s %9s %9s %9s%n", "step", "+p50", "+p95", "at p50", "at p95"));
            for (String step : ats.keySet()) {
                List<Double> d = deltas.getOrDefault(step, List.of()), a = ats.get(step);
                b.append(String.format("  %-20s %9.1f %9.1f %9.1f %9.1f%n", step, percentile(d, .5), percentile(d, .95), percentile(a, .5), percentile(a, .95)));
            }
        } else {
            b.append("  (this build's SDK has no join timeline: totals from the probe only)\n");
        }
        List<Double> totals = joins.stream().map(Join::probeMs).toList();
        b.append(String.format("  total admitted → first decoded frame (probe): p50 %.0f ms, p95 %.0f ms, max %.0f ms%n",
                percentile(totals, .5), percentile(totals, .95), percentile(totals, 1)));
        return b.toString();
    }
}
