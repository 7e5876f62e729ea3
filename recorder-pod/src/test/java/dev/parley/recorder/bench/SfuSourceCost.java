package dev.parley.recorder.bench;

import dev.parley.recorder.RecordingRun;
import dev.parley.recorder.config.RecorderConfig;
import dev.parley.recorder.media.LoopbackTrackSources;
import dev.parley.recorder.metrics.RecorderMetrics;
import dev.parley.recorder.sfu.SfuTrackSources;
import dev.parley.recorder.testing.RecorderEnv;
import dev.parley.recorder.testing.RtpPublisher;
import dev.parley.recorder.testing.SfuControlPlane;
import dev.parley.recorder.testing.SfuMediaPublisher;
import dev.parley.recorder.testing.SfuProcess;
import dev.parley.testsupport.etcd.EtcdCluster;
import dev.parley.testsupport.s3.S3Proxy;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;

/**
 * What recording through the SFU costs the recorder on top of the loopback source (bench/recorder/README.md).
 * In one JVM: N recordings subscribe through a real SFU process (DTLS-SRTP, {@link SfuTrackSources}) to one
 * publisher (ffmpeg VP8 + Opus over media-core's client role), and M recordings read the same kind of media as
 * plain RTP on loopback. Per thread CPU time (ThreadMXBean) during the media separates the source-specific
 * work: {@code sfu-in-*} (receive, SRTP decrypt, route by SSRC) and {@code sfu-dtls-*} / {@code sfu-subscriber}
 * (handshake, consent, PLIs, control) versus {@code rtp-in-*} (receive), and the pipeline threads
 * ({@code track-*}: stitch, reorder, depacketize, write to ffmpeg) that both share. ffmpeg segmenting, sha256
 * and uploads are the same for both sources and are measured by run.sh.
 *
 * <pre>java -cp ... dev.parley.recorder.bench.SfuSourceCost [sfuRecordings=4] [loopbackRecordings=2] [seconds=30]</pre>
 */
public final class SfuSourceCost {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private SfuSourceCost() {
    }

    public static void main(String[] args) throws Exception {
        int sfuRecordings = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        int loopRecordings = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 30;
        Path tmp = Files.createTempDirectory("parley-sfu-source-cost");
        List<RecordingRun> runs = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        List<SfuTrackSources> sfuSources = new ArrayList<>();
        List<RecordingRun> loopRuns = new ArrayList<>();
        List<RtpPublisher> loopPublishers = new ArrayList<>();
        try (EtcdCluster etcd = EtcdCluster.start(1); S3Proxy s3 = S3Proxy.start("bench");
             SfuControlPlane control = new SfuControlPlane(UUID.randomUUID().toString(), 1);
             SfuProcess sfu = SfuProcess.start("sfu-bench", SfuControlPlane.SECRET, control.ticketPublicJwk(),
                     tmp.resolve("sfu.log"))) {
            control.placeMeetingOn(sfu);
            try (SfuMediaPublisher pub = SfuMediaPublisher.join(control, UUID.randomUUID().toString())) {
                for (int i = 0; i < sfuRecordings; i++) {
                    String job = "sfu-" + i;
                    Map<String, String> env = env(etcd, s3, job, "", tmp);
                    env.put("PARLEY_RECORDER_SOURCE", "sfu");
                    SfuTrackSources src = new SfuTrackSources(control.recorderBroker(job, 1),
                            InetAddress.getLoopbackAddress(), 2, 10);
                    sfuSources.add(src);
                    runs.add(new RecordingRun(RecorderConfig.fromEnv(env), src, m -> { }));
                }
                int[][] ports = new int[loopRecordings][2];
                for (int i = 0; i < loopRecordings; i++) {
                    ports[i][0] = RtpPublisher.freeUdpPort();
                    ports[i][1] = RtpPublisher.freeUdpPort();
                    RecorderConfig cfg = RecorderConfig.fromEnv(env(etcd, s3, "loop-" + i,
                            "lcam" + i + ":vp8:" + ports[i][0] + ",lmic" + i + ":opus:" + ports[i][1], tmp));
                    RecordingRun run = new RecordingRun(cfg, new LoopbackTrackSources(cfg.rtpTracks()), m -> { });
                    runs.add(run);
                    loopRuns.add(run);
                }
                for (RecordingRun run : runs) {
                    threads.add(Thread.ofPlatform().start(run::run));
                }
                for (SfuTrackSources src : sfuSources) {
                    await(() -> src.attachedTracks() == 2, 120, "SFU subscription " + src.describe());
                }
                Thread.sleep(1000); // loopback sources bound after their manifest write

                Map<String, Long> before = cpuByGroup();
                pub.publish(seconds, tmp.resolve("pub-sfu.log"));
                for (int i = 0; i < loopRecordings; i++) {
                    loopPublishers.add(RtpPublisher.start(ports[i][0], ports[i][1], seconds, tmp.resolve("pub-" + i + ".log")));
                }
                pub.waitForMediaEnd(seconds + 60L);
                for (RtpPublisher p : loopPublishers) {
                    p.waitFor(seconds + 60L);
                }
                Thread.sleep(500);
                Map<String, Long> after = cpuByGroup();
                long sfuPackets = sfuSources.stream().mapToLong(SfuTrackSources::packetsReceived).sum();
                long loopPackets = loopRuns.stream().mapToLong(r -> r.metrics().total(RecorderMetrics.RTP_PACKETS)).sum();
                report(sfuRecordings, loopRecordings, seconds, sfuPackets, loopPackets, before, after);
                System.out.println("publisher into the SFU sent " + pub.packetsSent() + " packets; per SFU recording "
                        + sfuSources.stream().map(x -> Long.toString(x.packetsReceived())).toList()
                        + "; SFU forwarded " + sfu.metric("parley_sfu_forwarded_packets_total"));
            } finally {
                for (RtpPublisher p : loopPublishers) {
                    p.close();
                }
                for (RecordingRun run : runs) {
                    run.requestStop("bench over");
                }
                for (Thread t : threads) {
                    t.join(300_000);
                }
            }
        }
    }

    private static Map<String, String> env(EtcdCluster etcd, S3Proxy s3, String job, String tracks, Path tmp) {
        Map<String, String> env = new HashMap<>(RecorderEnv.of(etcd, s3, job, 1, tracks, tmp.resolve("spool-" + job), 10));
        env.put("PARLEY_RECORDER_TILE", "160x90"); // the composite is not what this measures
        // many recorders in one starved JVM: the tests' 2 s lease would fence them mid-run
        env.put("PARLEY_LEASE_TTL_SECONDS", "15");
        return env;
    }

    /** Thread CPU nanoseconds summed by thread group (name prefix). */
    private static Map<String, Long> cpuByGroup() {
        Map<String, Long> out = new HashMap<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            String group = group(t.getName());
            long ns = THREADS.getThreadCpuTime(t.threadId());
            if (group != null && ns > 0) {
                out.merge(group, ns, Long::sum);
            }
        }
        return out;
    }

    private static String group(String name) {
        if (name.startsWith("sfu-in-")) {
            return "sfu-receive";
        }
        if (name.startsWith("sfu-dtls-") || name.equals("sfu-subscriber")) {
            return "sfu-control";
        }
        if (name.startsWith("rtp-in-")) {
            return "loop-receive";
        }
        if (name.startsWith("track-l")) {
            return "loop-pipeline";
        }
        if (name.startsWith("track-")) {
            return "sfu-pipeline";
        }
        return null;
    }

    private static void report(int sfuN, int loopN, int seconds, long sfuPackets, long loopPackets,
                               Map<String, Long> before, Map<String, Long> after) {
        Map<String, Double> cpu = new HashMap<>();
        for (String g : List.of("sfu-receive", "sfu-control", "sfu-pipeline", "loop-receive", "loop-pipeline")) {
            cpu.put(g, (after.getOrDefault(g, 0L) - before.getOrDefault(g, 0L)) / 1e9);
        }
        double sfuRecv = cpu.get("sfu-receive") + cpu.get("sfu-control");
        double loopRecv = cpu.get("loop-receive");
        double sfuUsPerPacket = sfuPackets == 0 ? Double.NaN : cpu.get("sfu-receive") * 1e6 / sfuPackets;
        double loopUsPerPacket = loopPackets == 0 ? Double.NaN : loopRecv * 1e6 / loopPackets;
        // CPU seconds per recording per media second
        double sfuSource = sfuRecv / sfuN / seconds;
        double loopSource = loopN == 0 ? 0 : loopRecv / loopN / seconds;
        double sfuPipe = cpu.get("sfu-pipeline") / sfuN / seconds;
        double loopPipe = loopN == 0 ? 0 : cpu.get("loop-pipeline") / loopN / seconds;
        System.out.println("sfu_recordings loop_recordings media_s sfu_packets loop_packets sfu_receive_us_per_packet "
                + "loop_receive_us_per_packet sfu_source_cpu_per_media_s loop_source_cpu_per_media_s "
                + "sfu_pipeline_cpu_per_media_s loop_pipeline_cpu_per_media_s added_cpu_per_media_s");
        System.out.println(String.format(Locale.ROOT, "%d %d %d %d %d %.1f %.1f %.5f %.5f %.5f %.5f %.5f", sfuN, loopN,
                seconds, sfuPackets, loopPackets, sfuUsPerPacket, loopUsPerPacket, sfuSource, loopSource, sfuPipe, loopPipe,
                (sfuSource + sfuPipe) - (loopSource + loopPipe)));
        System.out.println("cpu seconds by thread group: " + cpu);
    }

    private static void await(BooleanSupplier condition, int seconds, String what) throws InterruptedException {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out: " + what);
            }
            Thread.sleep(100);
        }
    }
}
