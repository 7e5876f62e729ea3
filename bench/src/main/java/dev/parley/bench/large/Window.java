package dev.parley.bench.large;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * One measured window: from {@link #open} to {@link #close}, the figures of the platform (controller CPU, per SFU
 * CPU, forwarded and relayed packets/s from its metrics) and of the participants given (signaling bytes on their
 * sockets, and per receiver the slots that carried packets: at most N audio and at most its page of video, else a
 * violation).
 */
final class Window {
    /** What one window measured. */
    record Figures(String phase, double seconds, double signalingBytesPerParticipant, double messagesPerParticipant,
                   double controllerCpuMsPerS, List<String> sfuLines, double egressPps, int maxAudio, int minAudio,
                   int maxVideo, int minVideo, long lossExpected, long lossReceived, List<String> violations,
                   String types, int receivers, double clientCpuMsPerS) {
        double lossPct() {
            return lossExpected <= 0 ? 0 : Math.max(0, 100.0 * (lossExpected - lossReceived) / lossExpected);
        }
    }

    private final String phase;
    private final Platform platform;
    private final List<Participant> counted;
    private final Participant.Counter counter;
    private final int topN;
    private static final long SELF = ProcessHandle.current().pid();
    private long t0, ctl0, client0;
    private long[] sfuCpu0;
    private double[][] sfuPackets0;
    private final java.util.IdentityHashMap<Participant, long[][]> rx0 = new java.util.IdentityHashMap<>();

    private Window(String phase, Platform platform, List<Participant> counted, Participant.Counter counter, int topN) {
        this.phase = phase;
        this.platform = platform;
        this.counted = counted;
        this.counter = counter;
        this.topN = topN;
    }

    static Window open(String phase, Platform platform, List<Participant> counted, Participant.Counter counter, int topN)
            throws Exception {
        Window w = new Window(phase, platform, List.copyOf(counted), counter, topN);
        w.start();
        return w;
    }

    private void start() throws Exception {
        int k = platform.sfus.size();
        sfuCpu0 = new long[k];
        sfuPackets0 = new double[k][];
        for (int i = 0; i < k; i++) {
            Platform.Sfu s = platform.sfus.get(i);
            sfuPackets0[i] = packets(platform.metrics(s));
            sfuCpu0[i] = Platform.cpuMillis(s.process().pid());
        }
        for (Participant p : counted) rx0.put(p, p.receiver.snapshot());
        counter.reset();
        ctl0 = Platform.cpuMillis(platform.controllerPid());
        client0 = Platform.cpuMillis(SELF);
        t0 = System.nanoTime();
    }

    Figures close() throws Exception {
        double secs = (System.nanoTime() - t0) / 1e9;
        long ctl = Platform.cpuMillis(platform.controllerPid()) - ctl0;
        long client = Platform.cpuMillis(SELF) - client0;
        long bytes = counter.bytes.sum(), msgs = counter.messages.sum();
        String types = counter.byType.entrySet().stream()
                .sorted((a, b) -> Long.compare(b.getValue().sum(), a.getValue().sum())).limit(8)
                .map(e -> e.getKey() + "=" + e.getValue().sum() + " (" + counter.bytesByType.get(e.getKey()).sum() + " B)")
                .collect(Collectors.joining(" "));
        List<String> sfuLines = new ArrayList<>();
        double egress = 0;
        for (int i = 0; i < platform.sfus.size(); i++) {
            Platform.Sfu s = platform.sfus.get(i);
            long cpu = Platform.cpuMillis(s.process().pid()) - sfuCpu0[i];
            double[] p1 = packets(platform.metrics(s));
            double fwd = (p1[0] - sfuPackets0[i][0]) / secs, relayOut = (p1[1] - sfuPackets0[i][1]) / secs,
                    relayIn = (p1[2] - sfuPackets0[i][2]) / secs;
            egress += fwd + relayOut;
            sfuLines.add(String.format("%s (%s): egress %.0f pkt/s (forwarded %.0f to subscribers + relayed out %.0f), relayed in %.0f pkt/s, CPU %.0f ms/s",
                    s.pod(), s.region(), fwd + relayOut, fwd, relayOut, relayIn, cpu / secs));
        }
        int maxA = 0, minA = Integer.MAX_VALUE, maxV = 0, minV = Integer.MAX_VALUE, receivers = 0;
        long expected = 0, got = 0;
        List<String> violations = new ArrayList<>();
        for (Participant p : counted) {
            long[][] before = rx0.get(p), after = p.receiver.snapshot();
            if (before == null || after[0].length == 0 || before[0].length != after[0].length) continue;
            receivers++;
            int audio = 0, video = 0;
            for (int s = 0; s < after[0].length; s++) {
                long d = after[0][s] - before[0][s];
                if (d <= 0) continue;
                if (p.receiver.isAudio(s)) audio++;
                else video++;
                if (before[1][s] >= 0) {
                    expected += after[1][s] - before[1][s];
                    got += d;
                }
            }
            int pageVideos = p.page.size();
            maxA = Math.max(maxA, audio);
            minA = Math.min(minA, audio);
            maxV = Math.max(maxV, video);
            minV = Math.min(minV, video);
            if (audio > topN) violations.add(phase + ": participant " + p.index + " received " + audio + " audio streams (N=" + topN + ")");
            if (video > pageVideos) violations.add(phase + ": participant " + p.index + " received " + video + " videos (its page has " + pageVideos + ")");
            if (p.receiver.unknown > 0) violations.add(phase + ": participant " + p.index + " received " + p.receiver.unknown + " packets on SSRCs not in its answer");
            int assignedAudio = 0;
            for (int s = 0; s < p.receiver.slots(); s++) {
                String owner = p.slotOwner.get(p.receiver.mid(s));
                if (owner == null) continue;
                if (p.receiver.isAudio(s)) assignedAudio++;
                else if (!p.page.contains(owner)) violations.add(phase + ": participant " + p.index + " has a video slot of " + owner + ", not on its page");
            }
            if (assignedAudio > topN) violations.add(phase + ": participant " + p.index + " has " + assignedAudio + " audio slots assigned (N=" + topN + ")");
        }
        int n = Math.max(1, counted.size());
        return new Figures(phase, secs, bytes / (double) n / secs, msgs / (double) n / secs, ctl / secs, sfuLines, egress,
                maxA, receivers == 0 ? 0 : minA, maxV, receivers == 0 ? 0 : minV, expected, got, violations, types, receivers, client / secs);
    }

    /** {forwarded to subscribers, relayed out, relayed in} packet counters of one SFU's metrics. */
    private static double[] packets(String metrics) {
        double fwd = 0, out = 0, in = 0;
        for (String l : metrics.split("\n")) {
            if (l.startsWith("parley_sfu_forwarded_packets_total ")) fwd = value(l);
            else if (l.startsWith("parley_sfu_relay_packets_total{direction=\"out\"")) out += value(l);
            else if (l.startsWith("parley_sfu_relay_packets_total{direction=\"in\"")) in += value(l);
        }
        return new double[]{fwd, out, in};
    }

    private static double value(String line) {
        return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
    }

    /** Drop counters of every SFU, by reason (for the log). */
    static String drops(Platform platform) throws Exception {
        StringBuilder sb = new StringBuilder();
        for (Platform.Sfu s : platform.sfus) {
            sb.append(s.pod()).append(':');
            for (String l : platform.metrics(s).split("\n")) {
                if (l.startsWith("parley_sfu_drops_total{")) sb.append(' ').append(l.substring(l.indexOf('"') + 1, l.lastIndexOf('"')))
                        .append('=').append((long) value(l));
            }
            sb.append("; ");
        }
        return sb.toString();
    }

    static String format(Figures f, int topN, int pageSize) {
        return String.format("%s: %.1f s, %d receivers: signaling %.0f B/s and %.2f msg/s per participant; controller CPU %.0f ms/s; load client CPU %.0f ms/s;"
                        + " SFU egress %.0f pkt/s in all; audio streams per receiver %d..%d (N=%d), videos per receiver %d..%d (page %d);"
                        + " loss %.2f %%; violations %d; load %s; messages by type: %s",
                f.phase(), f.seconds(), f.receivers(), f.signalingBytesPerParticipant(), f.messagesPerParticipant(),
                f.controllerCpuMsPerS(), f.clientCpuMsPerS(), f.egressPps(), f.minAudio(), f.maxAudio(), topN, f.minVideo(), f.maxVideo(), pageSize,
                f.lossPct(), f.violations().size(), LargeMeeting.load(), f.types());
    }
}
