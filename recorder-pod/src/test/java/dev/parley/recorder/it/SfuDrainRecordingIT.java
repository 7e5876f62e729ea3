package dev.parley.recorder.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.parley.recorder.RecordingRun;
import dev.parley.recorder.config.RecorderConfig;
import dev.parley.recorder.manifest.JobState;
import dev.parley.recorder.manifest.Manifest;
import dev.parley.recorder.manifest.ManifestStore;
import dev.parley.recorder.metrics.RecorderMetrics;
import dev.parley.recorder.segment.Ffmpeg;
import dev.parley.recorder.sfu.ClientPeerConnection;
import dev.parley.recorder.sfu.SfuTrackSources;
import dev.parley.recorder.storage.ObjectKeys;
import dev.parley.recorder.storage.ObjectStore;
import dev.parley.recorder.storage.S3Clients;
import dev.parley.recorder.testing.RecorderEnv;
import dev.parley.recorder.testing.SfuControlPlane;
import dev.parley.recorder.testing.SfuMediaPublisher;
import dev.parley.recorder.testing.SfuProcess;
import dev.parley.recorder.testing.VideoPts;
import dev.parley.testsupport.etcd.EtcdCluster;
import dev.parley.testsupport.s3.S3Proxy;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SFU drain during a recording, on two real SFU processes: the meeting moves from sfu-a to sfu-b (the publisher
 * publishes on both for a moment, as a migrating client does), the recorder re-subscribes on sfu-b before leaving
 * sfu-a, and the pipeline stitches both legs. Result: {@code ready}, no missing range, every published video frame
 * exactly once with evenly spaced timestamps across the switch.
 */
class SfuDrainRecordingIT {
    static final int SECONDS = 12;
    static final int FPS = 15;
    static final int SEGMENT = 2;

    @TempDir
    Path tmp;

    @Test
    void drainingTheSfuMovesTheRecorderWithoutAGap() throws Exception {
        String job = "job-drain";
        String pid = UUID.randomUUID().toString();
        try (EtcdCluster etcd = EtcdCluster.start(1); S3Proxy s3 = S3Proxy.start("recordings");
             SfuControlPlane control = new SfuControlPlane(UUID.randomUUID().toString(), 3);
             SfuProcess a = SfuProcess.start("sfu-a", SfuControlPlane.SECRET, control.ticketPublicJwk(), tmp.resolve("a.log"));
             SfuProcess b = SfuProcess.start("sfu-b", SfuControlPlane.SECRET, control.ticketPublicJwk(), tmp.resolve("b.log"))) {
            var env = RecorderEnv.of(etcd, s3, job, 1, "", tmp.resolve("spool"), SEGMENT);
            env.put("PARLEY_RECORDER_SOURCE", "sfu");
            RecorderConfig cfg = RecorderConfig.fromEnv(env);
            control.placeMeetingOn(a);
            try (SfuMediaPublisher pub = SfuMediaPublisher.join(control, pid)) {
                ClientPeerConnection onA = pub.connections().get(0);
                SfuTrackSources sources = new SfuTrackSources(control.recorderBroker(job, 1),
                        InetAddress.getLoopbackAddress(), 2, SEGMENT);
                RecordingRun run = new RecordingRun(cfg, sources, m -> { });
                Thread t = Thread.ofPlatform().start(run::run);
                Awaits.until(sources::connected, 60);
                // the pipelines are attached before the publisher's first keyframe (ffmpeg ignores PLIs)
                Awaits.until(() -> sources.attachedTracks() == 2, 60, sources::describe);
                pub.publish(SECONDS, tmp.resolve("pub.log"));
                Awaits.until(() -> sources.packetsReceived() > 100, 30);

                // drain sfu-a: the meeting goes to sfu-b; publisher and recorder make before they break
                control.placeMeetingOn(b);
                pub.connectTo(control, pid);
                sources.resubscribe();
                Awaits.until(() -> "sfu-b".equals(sources.sfuPod()) && sources.handedOver(), 60, sources::describe);
                pub.leave(onA);
                assertThat(pub.waitForMediaEnd(SECONDS + 60)).isTrue();
                Thread.sleep(500);
                run.requestStop("test: meeting over");
                t.join(180_000);
                assertThat(run.exitCode()).isEqualTo(RecordingRun.EXIT_DONE);
                RecorderMetrics metrics = run.metrics();
                assertThat(metrics.total(RecorderMetrics.DUPLICATE_PACKETS)).as("packets delivered by both SFUs").isPositive();
                assertThat(metrics.total(RecorderMetrics.DROPPED_FRAMES)).isZero();
                assertThat(b.metric("parley_sfu_forwarded_packets_total")).isPositive();
            }
            String cam = pid + "_" + SfuMediaPublisher.VIDEO_MID;
            try (ObjectStore store = new ObjectStore(S3Clients.create(cfg.s3()), cfg.s3().bucket())) {
                Manifest m = ManifestStore.readCurrent(store, ObjectKeys.NONE, job).orElseThrow();
                assertThat(m.state).isEqualTo(JobState.READY);
                assertThat(m.missingRanges).isEmpty();
                Awaits.assertChecksumsMatch(store, m);
                List<Double> pts = videoPts(store, m, cam);
                assertThat(pts).as("every published frame once").hasSize(SECONDS * FPS);
                for (int i = 1; i < pts.size(); i++) {
                    assertThat(pts.get(i) - pts.get(i - 1)).as("frame interval at " + i).isBetween(0.050, 0.090);
                }
                Path composite = tmp.resolve("composite.mp4");
                store.download(m.result.compositeKey(), composite);
                assertThat(new Ffmpeg("ffmpeg", "ffprobe").duration(composite)).isCloseTo(SECONDS, within(1.0));
            }
        }
    }

    /** The track's segments from storage, concatenated, and every video packet's pts. */
    private List<Double> videoPts(ObjectStore store, Manifest m, String track) throws Exception {
        List<Path> files = new java.util.ArrayList<>();
        for (Manifest.SegmentEntry s : m.segments.stream().filter(x -> x.trackId().equals(track))
                .sorted(java.util.Comparator.comparingLong(Manifest.SegmentEntry::seq)).toList()) {
            Path f = tmp.resolve("seg-" + s.seq() + ".webm");
            store.download(s.key(), f);
            files.add(f);
        }
        return VideoPts.ofConcatenated(files, tmp);
    }
}
