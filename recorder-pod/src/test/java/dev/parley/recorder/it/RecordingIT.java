package dev.parley.recorder.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.parley.recorder.RecordingRun;
import dev.parley.recorder.config.RecorderConfig;
import dev.parley.recorder.manifest.JobState;
import dev.parley.recorder.manifest.Manifest;
import dev.parley.recorder.manifest.ManifestStore;
import dev.parley.recorder.media.LoopbackTrackSources;
import dev.parley.recorder.segment.Ffmpeg;
import dev.parley.recorder.storage.ObjectKeys;
import dev.parley.recorder.storage.ObjectStore;
import dev.parley.recorder.storage.S3Clients;
import dev.parley.testsupport.etcd.EtcdCluster;
import dev.parley.recorder.testing.RecorderEnv;
import dev.parley.recorder.testing.RtpPublisher;
import dev.parley.testsupport.s3.S3Proxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A whole recording on real parts: ffmpeg publishes VP8 + Opus over RTP, the recorder (in this JVM) holds the
 * etcd lease, segments with ffmpeg, uploads to s3proxy and finalizes. The default is the scenario: 60 s
 * in 10 s segments, 6 per track (-Dparley.recorder.seconds=12 -Dparley.recorder.segment=2 for a quick run).
 */
class RecordingIT {
    static final int SECONDS = Integer.getInteger("parley.recorder.seconds", 60);
    static final int SEGMENT = Integer.getInteger("parley.recorder.segment", 10);

    @TempDir
    static Path tmp;
    static EtcdCluster etcd;
    static S3Proxy s3;

    @BeforeAll
    static void up() throws Exception {
        etcd = EtcdCluster.start(1);
        s3 = S3Proxy.start("recordings");
    }

    @AfterAll
    static void down() throws Exception {
        s3.close();
        etcd.close();
    }

    static HttpResponse<String> get(HttpClient http, String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void recordingBecomesReadyWithVerifiedSegmentsAndAPlayableComposite() throws Exception {
        int vp = RtpPublisher.freeUdpPort();
        int ap = RtpPublisher.freeUdpPort();
        String job = "job-ready";
        var env = RecorderEnv.of(etcd, s3, job, 1, "cam:vp8:" + vp + ",mic:opus:" + ap, tmp.resolve("spool"), SEGMENT);
        env.put("PARLEY_INTERNAL_SECRET", "test-internal-secret");
        RecorderConfig cfg = RecorderConfig.fromEnv(env);
        List<JobState> reported = new CopyOnWriteArrayList<>();
        RecordingRun run = new RecordingRun(cfg, new LoopbackTrackSources(cfg.rtpTracks()), m -> reported.add(m.state));
        Thread t = Thread.ofPlatform().start(run::run);
        Awaits.until(() -> reported.contains(JobState.STARTING), 30);
        Thread.sleep(500); // sources bound right after the manifest is written
        try (RtpPublisher pub = RtpPublisher.start(vp, ap, SECONDS, tmp.resolve("pub.log"))) {
            assertThat(pub.waitFor(SECONDS + 30)).isTrue();
        }
        Thread.sleep(300);
        // the internal port: health, readiness, metrics, and the stop command (bearer secret)
        HttpClient http = HttpClient.newHttpClient();
        String base = "http://127.0.0.1:" + run.adminPort();
        assertThat(get(http, base + "/healthz").statusCode()).isEqualTo(200);
        assertThat(get(http, base + "/readyz").statusCode()).isEqualTo(200);
        String metrics = get(http, base + "/metrics").body();
        assertThat(metrics).contains("# TYPE parley_recorder_segments_uploaded_total counter")
                .containsPattern("(?m)^parley_recorder_rtp_packets_total [1-9]").doesNotContain("track=").contains("parley_recorder_buffer_bytes")
                .containsPattern("(?m)^jvm_memory_used_bytes\\{").containsPattern("(?m)^process_cpu_seconds_total ");
        var noSecret = http.send(HttpRequest.newBuilder(URI.create(base + "/stop"))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(noSecret.statusCode()).isEqualTo(401);
        assertThat(noSecret.headers().firstValue("Content-Type")).contains("application/problem+json");
        var stop = http.send(HttpRequest.newBuilder(URI.create(base + "/stop"))
                .header("Authorization", "Bearer test-internal-secret")
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(stop.statusCode()).isEqualTo(202);
        t.join(180_000);
        assertThat(run.exitCode()).isEqualTo(RecordingRun.EXIT_DONE);
        assertThat(reported).containsSubsequence(JobState.STARTING, JobState.RECORDING, JobState.FINALIZING,
                JobState.READY);

        try (ObjectStore store = new ObjectStore(S3Clients.create(cfg.s3()), cfg.s3().bucket())) {
            Manifest m = ManifestStore.readCurrent(store, ObjectKeys.NONE, job).orElseThrow();
            assertThat(m.state).isEqualTo(JobState.READY);
            assertThat(m.missingRanges).isEmpty();
            int expected = (int) Math.ceil((double) SECONDS / SEGMENT);
            for (String track : List.of("cam", "mic")) {
                List<Manifest.SegmentEntry> segs = m.segments.stream().filter(s -> s.trackId().equals(track)).toList();
                assertThat(segs).as(track + " segments " + segs).hasSize(expected);
                assertThat(segs).extracting(Manifest.SegmentEntry::key)
                        .allMatch(k -> k.startsWith(job + "/1/" + track + "/"));
            }
            Awaits.assertChecksumsMatch(store, m);
            Path composite = tmp.resolve("composite.mp4");
            store.download(m.result.compositeKey(), composite);
            Ffmpeg ff = new Ffmpeg("ffmpeg", "ffprobe");
            assertThat(ff.duration(composite)).isCloseTo(SECONDS, within(1.0));
            assertThat(ff.streamTypes(composite)).contains("video", "audio");
            assertThat(m.result.trackKeys()).containsOnlyKeys("cam", "mic");
        }
        assertThat(run.metrics().total("parley_recorder_segments_uploaded_total"))
                .isEqualTo(2L * (long) Math.ceil((double) SECONDS / SEGMENT));
    }
}
