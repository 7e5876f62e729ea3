package dev.parley.recorder.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.parley.recorder.RecordingRun;
import dev.parley.recorder.config.RecorderConfig;
import dev.parley.recorder.manifest.JobState;
import dev.parley.recorder.manifest.Manifest;
import dev.parley.recorder.manifest.ManifestStore;
import dev.parley.recorder.segment.Ffmpeg;
import dev.parley.recorder.sfu.SfuTrackSources;
import dev.parley.recorder.storage.ObjectKeys;
import dev.parley.recorder.storage.ObjectStore;
import dev.parley.recorder.storage.S3Clients;
import dev.parley.recorder.testing.RecorderEnv;
import dev.parley.recorder.testing.SfuControlPlane;
import dev.parley.recorder.testing.SfuMediaPublisher;
import dev.parley.recorder.testing.SfuProcess;
import dev.parley.testsupport.etcd.EtcdCluster;
import dev.parley.testsupport.s3.S3Proxy;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recording through the real SFU (sfu-pod as its own process): a participant publishes ffmpeg's VP8 + Opus over
 * DTLS-SRTP, the recorder joins as the hidden subscribe-only participant {@code recorder:{job}:{gen}} and receives
 * the meeting's tracks over its own DTLS-SRTP transport. {@link SfuControlPlane} plays the owner controller
 * toward the SFU (tickets, grants, renewals) with platform-core's types.
 */
class SfuRecordingIT {
    static final int SECONDS = Integer.getInteger("parley.recorder.sfu.seconds", 8);
    static final int SEGMENT = 2;

    @TempDir
    static Path tmp;
    static EtcdCluster etcd;
    static S3Proxy s3;
    static SfuControlPlane sfuKeys;
    static SfuProcess sfu;
    /** Each test is its own meeting on the shared SFU. */
    SfuControlPlane control;

    @BeforeAll
    static void up() throws Exception {
        etcd = EtcdCluster.start(1);
        s3 = S3Proxy.start("recordings");
        sfuKeys = new SfuControlPlane(UUID.randomUUID().toString(), 7);
        sfu = SfuProcess.start("sfu-a", SfuControlPlane.SECRET, sfuKeys.ticketPublicJwk(), tmp.resolve("sfu-a.log"));
        sfuKeys.placeMeetingOn(sfu);
    }

    @BeforeEach
    void meeting() {
        control = sfuKeys.otherMeeting(UUID.randomUUID().toString(), 7);
    }

    @AfterEach
    void endMeeting() {
        control.close();
    }

    @AfterAll
    static void down() throws Exception {
        sfuKeys.close();
        sfu.close();
        s3.close();
        etcd.close();
    }

    static RecorderConfig config(String job) {
        var env = RecorderEnv.of(etcd, s3, job, 1, "", tmp.resolve("spool-" + job), SEGMENT);
        env.put("PARLEY_RECORDER_SOURCE", "sfu");
        return RecorderConfig.fromEnv(env);
    }

    @Test
    void recordingThroughTheSfuBecomesReady() throws Exception {
        String job = "job-sfu";
        String pid = UUID.randomUUID().toString();
        RecorderConfig cfg = config(job);
        List<JobState> reported = new CopyOnWriteArrayList<>();
        try (SfuMediaPublisher pub = SfuMediaPublisher.join(control, pid)) {
            SfuTrackSources sources = new SfuTrackSources(control.recorderBroker(job, 1), InetAddress.getLoopbackAddress(),
                    2, SEGMENT);
            RecordingRun run = new RecordingRun(cfg, sources, m -> reported.add(m.state));
            Thread t = Thread.ofPlatform().start(run::run);
            Awaits.until(sources::connected, 60);
            // the pipelines are attached before the publisher's first keyframe (ffmpeg ignores PLIs)
            Awaits.until(() -> sources.attachedTracks() == 2, 60, sources::describe);
            pub.publish(SECONDS, tmp.resolve("pub-ready.log"));
            assertThat(pub.waitForMediaEnd(SECONDS + 60)).isTrue();
            Thread.sleep(500);
            run.requestStop("test: meeting over");
            t.join(180_000);
            assertThat(run.exitCode()).isEqualTo(RecordingRun.EXIT_DONE);
            assertThat(reported).containsSubsequence(JobState.STARTING, JobState.RECORDING, JobState.FINALIZING,
                    JobState.READY);
            assertThat(run.metrics().total(dev.parley.recorder.metrics.RecorderMetrics.DROPPED_FRAMES)).isZero();
            // it came through the SFU: forwarded by it, decrypted by us
            assertThat(sfu.metric("parley_sfu_forwarded_packets_total")).isGreaterThan(0);
            assertThat(sources.packetsReceived()).isGreaterThan(pub.packetsSent() * 9 / 10);

            String cam = pid + "_" + SfuMediaPublisher.VIDEO_MID;
            String mic = pid + "_" + SfuMediaPublisher.AUDIO_MID;
            try (ObjectStore store = new ObjectStore(S3Clients.create(cfg.s3()), cfg.s3().bucket())) {
                Manifest m = ManifestStore.readCurrent(store, ObjectKeys.NONE, job).orElseThrow();
                assertThat(m.state).isEqualTo(JobState.READY);
                assertThat(m.missingRanges).isEmpty();
                assertThat(m.tracks).containsOnlyKeys(cam, mic);
                int expected = (int) Math.ceil((double) SECONDS / SEGMENT);
                for (String track : List.of(cam, mic)) {
                    List<Manifest.SegmentEntry> segs = m.segments.stream().filter(s -> s.trackId().equals(track)).toList();
                    assertThat(segs).as(track + " segments " + segs).hasSizeBetween(expected, expected + 1);
                }
                Awaits.assertChecksumsMatch(store, m);
                Path composite = tmp.resolve("sfu-composite.mp4");
                store.download(m.result.compositeKey(), composite);
                Ffmpeg ff = new Ffmpeg("ffmpeg", "ffprobe");
                assertThat(ff.duration(composite)).isCloseTo(SECONDS, within(1.0));
                assertThat(ff.streamTypes(composite)).contains("video", "audio");
            }
        }
    }

    @Test
    void revokedRecorderGrantStopsItsMediaAtTheSfu() throws Exception {
        String job = "job-revoked";
        String pid = UUID.randomUUID().toString();
        RecorderConfig cfg = config(job);
        try (SfuMediaPublisher pub = SfuMediaPublisher.join(control, pid)) {
            SfuTrackSources sources = new SfuTrackSources(control.recorderBroker(job, 1), InetAddress.getLoopbackAddress(),
                    2, SEGMENT);
            RecordingRun run = new RecordingRun(cfg, sources, m -> { });
            Thread t = Thread.ofPlatform().start(run::run);
            Awaits.until(sources::connected, 60);
            // the pipelines are attached before the publisher's first keyframe (ffmpeg ignores PLIs)
            Awaits.until(() -> sources.attachedTracks() == 2, 60, sources::describe);
            pub.publish(30, tmp.resolve("pub-revoke.log"));
            Awaits.until(() -> sources.packetsReceived() > 100, 30);
            double droppedBefore = sfu.metric("parley_sfu_drops_total{reason=\"grant_subscribe\"}");

            control.revoke("recorder:" + job + ":1");
            Thread.sleep(1000); // the revocation is a PUT on the SFU's internal API: in effect once answered
            long atRevocation = sources.packetsReceived();
            long sentAtRevocation = pub.packetsSent();
            Thread.sleep(3000);
            // the publisher kept sending; the SFU dropped everything meant for the recorder
            assertThat(pub.packetsSent() - sentAtRevocation).isGreaterThan(100);
            assertThat(sources.packetsReceived() - atRevocation).isLessThanOrEqualTo(5);
            assertThat(sfu.metric("parley_sfu_drops_total{reason=\"grant_subscribe\"}")).isGreaterThan(droppedBefore + 50);

            run.requestStop("test");
            t.join(180_000);
            assertThat(run.exitCode()).isEqualTo(RecordingRun.EXIT_DONE);
        }
    }
}
