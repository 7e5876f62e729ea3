package dev.parley.recorder.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.parley.recorder.config.RecorderConfig;
import dev.parley.recorder.manifest.JobState;
import dev.parley.recorder.manifest.Manifest;
import dev.parley.recorder.manifest.ManifestCodec;
import dev.parley.recorder.segment.Ffmpeg;
import dev.parley.recorder.storage.ObjectStore;
import dev.parley.recorder.storage.S3Clients;
import dev.parley.recorder.testing.RecorderEnv;
import dev.parley.recorder.testing.RecorderProcess;
import dev.parley.recorder.testing.RtpPublisher;
import dev.parley.testsupport.etcd.EtcdCluster;
import dev.parley.testsupport.s3.S3Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code PARLEY_S3_PREFIX} (the operator's {@code RecordingJob.spec.output.prefix}) end to end: the real jar,
 * real ffmpeg publishing VP8 + Opus, s3proxy. Every object the recorder writes lies under the prefix, the
 * recording is as complete as {@link RecordingIT}'s, and the state reports carry the prefixed keys. A bad prefix
 * stops the recorder at start-up with exit code 2 and writes nothing.
 */
class PrefixedRecordingIT {
    static final String PREFIX = "tenant-a/2026/";
    static final int SECONDS = Integer.getInteger("parley.recorder.prefix.seconds", 12);
    static final int SEGMENT = 4;

    @TempDir
    static Path tmp;
    static EtcdCluster etcd;
    static S3Proxy s3;
    static HttpServer controller;
    static final List<JsonNode> reports = new CopyOnWriteArrayList<>();
    static volatile boolean stopRequested;

    @BeforeAll
    static void up() throws Exception {
        etcd = EtcdCluster.start(1);
        s3 = S3Proxy.start("recordings");
        // the controller's state endpoint: records what the recorder reports, answers stop_requested when told
        controller = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
        controller.createContext("/internal/v1/recordings/", ex -> {
            reports.add(ManifestCodec.JSON.readTree(ex.getRequestBody().readAllBytes()));
            byte[] answer = ("{\"applied\":true,\"stop_requested\":" + stopRequested + "}")
                    .getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(200, answer.length);
            ex.getResponseBody().write(answer);
            ex.close();
        });
        controller.start();
    }

    @AfterAll
    static void down() throws Exception {
        controller.stop(0);
        s3.close();
        etcd.close();
    }

    @Test
    void everyObjectLiesUnderThePrefixAndTheRecordingIsComplete() throws Exception {
        reports.clear();
        stopRequested = false;
        int vp = RtpPublisher.freeUdpPort();
        int ap = RtpPublisher.freeUdpPort();
        String job = "job-prefixed";
        Map<String, String> env = RecorderEnv.of(etcd, s3, job, 1, "cam:vp8:" + vp + ",mic:opus:" + ap,
                tmp.resolve("spool"), SEGMENT);
        env.put("PARLEY_S3_PREFIX", PREFIX);
        env.put("PARLEY_CONTROLLER_INTERNAL_URL", "http://127.0.0.1:" + controller.getAddress().getPort());
        env.put("PARLEY_INTERNAL_SECRET", "test-internal-secret");
        RecorderConfig cfg = RecorderConfig.fromEnv(env);
        try (RecorderProcess rec = RecorderProcess.start(env, tmp.resolve("recorder.log"))) {
            Awaits.until(() -> reported(job, "starting"), 60, () -> log("recorder.log"));
            Thread.sleep(1000); // sources bind right after the manifest is written
            try (RtpPublisher pub = RtpPublisher.start(vp, ap, SECONDS, tmp.resolve("pub.log"))) {
                assertThat(pub.waitFor(SECONDS + 30)).isTrue();
            }
            Thread.sleep(300);
            stopRequested = true; // stop_recording: the answer to the next report (heartbeat every 5 s) says so
            assertThat(rec.waitFor(180)).as(log("recorder.log")).isZero();
        }

        String manifestKey = PREFIX + job + "/manifest/00000000000000000001.json";
        try (ObjectStore store = new ObjectStore(S3Clients.create(cfg.s3()), cfg.s3().bucket())) {
            List<String> keys = store.list("").stream().map(ObjectStore.StoredObject::key).toList();
            assertThat(keys).as("every key in the bucket: %s", keys).isNotEmpty()
                    .allMatch(k -> k.startsWith(PREFIX + job + "/"));
            assertThat(keys).contains(manifestKey);

            // the same checks as RecordingIT, on the prefixed objects
            Manifest m = ManifestCodec.decode(store.getDocument(manifestKey).orElseThrow().body());
            assertThat(m.state).isEqualTo(JobState.READY);
            assertThat(m.missingRanges).isEmpty();
            int expected = (int) Math.ceil((double) SECONDS / SEGMENT);
            for (String track : List.of("cam", "mic")) {
                List<Manifest.SegmentEntry> segs = m.segments.stream().filter(s -> s.trackId().equals(track)).toList();
                assertThat(segs).as(track + " segments " + segs).hasSize(expected);
                assertThat(segs).extracting(Manifest.SegmentEntry::key)
                        .allMatch(k -> k.startsWith(PREFIX + job + "/1/" + track + "/"));
            }
            Awaits.assertChecksumsMatch(store, m);
            assertThat(m.result.compositeKey()).isEqualTo(PREFIX + job + "/1/final/composite.mp4");
            Path composite = tmp.resolve("composite.mp4");
            String sha = store.download(m.result.compositeKey(), composite);
            assertThat(sha).isEqualTo(m.result.compositeSha256());
            Ffmpeg ff = new Ffmpeg("ffmpeg", "ffprobe");
            assertThat(ff.duration(composite)).isCloseTo(SECONDS, within(1.0));
            assertThat(ff.streamTypes(composite)).contains("video", "audio");
            assertThat(m.result.trackKeys()).containsOnlyKeys("cam", "mic");
            for (var e : m.result.trackKeys().entrySet()) {
                assertThat(e.getValue()).isEqualTo(PREFIX + job + "/1/final/" + e.getKey() + ".webm");
                assertThat(store.head(e.getValue())).isPresent();
            }

            // what the controller is told: where the manifest and the composite are
            JsonNode last = reports.stream().filter(r -> job.equals(r.path("job_id").asText())).reduce((a, b) -> b)
                    .orElseThrow();
            assertThat(last.get("state").asText()).isEqualTo("ready");
            assertThat(last.get("manifest_key").asText()).isEqualTo(manifestKey);
            assertThat(last.get("result").get("composite_key").asText()).isEqualTo(m.result.compositeKey());
            assertThat(reports).filteredOn(r -> job.equals(r.path("job_id").asText()))
                    .allMatch(r -> r.get("manifest_key").asText().equals(manifestKey));
        }
    }

    @Test
    void aPrefixWithADotDotSegmentIsABadConfigurationAndWritesNothing() throws Exception {
        String job = "job-bad-prefix";
        Map<String, String> env = RecorderEnv.of(etcd, s3, job, 1, "cam:vp8:" + RtpPublisher.freeUdpPort(),
                tmp.resolve("spool-bad"), SEGMENT);
        env.put("PARLEY_S3_PREFIX", "tenant-a/../tenant-b/");
        try (RecorderProcess rec = RecorderProcess.start(env, tmp.resolve("bad.log"))) {
            assertThat(rec.waitFor(30)).as(log("bad.log")).isEqualTo(2);
        }
        assertThat(log("bad.log")).contains("bad configuration").contains("PARLEY_S3_PREFIX").contains("..");
        try (ObjectStore store = new ObjectStore(S3Clients.create(RecorderConfig.fromEnv(
                RecorderEnv.of(etcd, s3, job, 1, "", tmp, SEGMENT)).s3()), s3.bucket())) {
            assertThat(store.list("")).noneMatch(o -> o.key().contains(job));
        }
    }

    private static boolean reported(String job, String state) {
        return reports.stream().anyMatch(r -> job.equals(r.path("job_id").asText())
                && state.equals(r.path("state").asText()));
    }

    private static String log(String name) {
        try {
            return Files.readString(tmp.resolve(name));
        } catch (java.io.IOException e) {
            return "(no log: " + e + ")";
        }
    }
}
