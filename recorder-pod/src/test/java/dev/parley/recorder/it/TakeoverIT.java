package dev.parley.recorder.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.parley.recorder.RecordingRun;
import dev.parley.recorder.config.RecorderConfig;
import dev.parley.recorder.manifest.JobState;
import dev.parley.recorder.manifest.Manifest;
import dev.parley.recorder.manifest.ManifestCodec;
import dev.parley.recorder.manifest.ManifestStore;
import dev.parley.recorder.manifest.StaleGenerationException;
import dev.parley.recorder.media.LoopbackTrackSources;
import dev.parley.recorder.segment.Ffmpeg;
import dev.parley.recorder.storage.ObjectKeys;
import dev.parley.recorder.storage.ObjectStore;
import dev.parley.recorder.storage.S3Clients;
import dev.parley.recorder.storage.Sha256;
import dev.parley.testsupport.etcd.EtcdCluster;
import dev.parley.recorder.testing.RecorderEnv;
import dev.parley.recorder.testing.RecorderProcess;
import dev.parley.recorder.testing.RtpPublisher;
import dev.parley.testsupport.s3.S3Proxy;
import dev.parley.recorder.testing.UdpRelay;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Generation 1 runs as the real jar and is SIGKILLed mid-recording; generation 2 takes the job over while
 * the old runner key is still alive, a stale generation-1 writer can't change the manifest, and the result
 * is partial with the gap on every track.
 */
class TakeoverIT {
    static final int MEDIA_SECONDS = 60; // upper bound: the publisher is stopped once generation 2 has media

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

    @Test
    void killedGenerationIsReplacedAndTheGapIsReported() throws Exception {
        int vp = RtpPublisher.freeUdpPort();
        int ap = RtpPublisher.freeUdpPort();
        String job = "job-takeover";
        String tracks = "cam:vp8:" + vp + ",mic:opus:" + ap;
        var env1 = RecorderEnv.of(etcd, s3, job, 1, tracks, tmp.resolve("spool1"), 2);
        RecorderConfig cfg1 = RecorderConfig.fromEnv(env1);
        try (ObjectStore store = new ObjectStore(S3Clients.create(cfg1.s3()), cfg1.s3().bucket());
             RecorderProcess gen1 = RecorderProcess.start(env1, tmp.resolve("gen1.log"));
             UdpRelay videoSfu = new UdpRelay();
             UdpRelay audioSfu = new UdpRelay()) {
            // the "SFU" keeps forwarding to the recorder's port whoever is behind it
            videoSfu.add(UdpRelay.Target.plain(vp));
            audioSfu.add(UdpRelay.Target.plain(ap));
            Awaits.until(() -> state(store, job).filter(m -> m.state == JobState.STARTING).isPresent(), 60);
            Thread.sleep(500);
            try (RtpPublisher pub = RtpPublisher.start(videoSfu.port(), audioSfu.port(), MEDIA_SECONDS,
                    tmp.resolve("pub.log"))) {
                // generation 1 confirms a few segments per track, then its node dies
                Awaits.until(() -> state(store, job).map(m -> m.segments.size() >= 5).orElse(false), 30);
                gen1.kill();
                Manifest atKill = state(store, job).orElseThrow();
                assertThat(atKill.generation).isEqualTo(1);

                // the operator starts generation 2 at once (the old runner key has not even expired yet)
                RecorderConfig cfg2 = RecorderConfig.fromEnv(RecorderEnv.of(etcd, s3, job, 2, tracks,
                        tmp.resolve("spool2"), 2));
                RecordingRun gen2 = new RecordingRun(cfg2, new LoopbackTrackSources(cfg2.rtpTracks()), m -> { });
                Thread t = Thread.ofPlatform().start(gen2::run);
                Awaits.until(() -> state(store, job).filter(m -> m.generation == 2).isPresent(), 30);

                // a stale generation-1 writer (e.g. partitioned from etcd, so its own fence still passes)
                // uploads a late segment and tries to record it
                String lateKey = job + "/1/cam/99";
                Path late = tmp.resolve("late.webm");
                Files.write(late, "late segment".getBytes(StandardCharsets.UTF_8));
                store.putFile(lateKey, late, Sha256.of(late), "video/webm");
                ManifestStore zombie = new ManifestStore(store, ObjectKeys.NONE, job, 1, () -> { });
                assertThatThrownBy(() -> zombie.takeOver("recorder-zombie", System.currentTimeMillis()))
                        .isInstanceOf(StaleGenerationException.class);
                // even a raw overwrite of generation 1's own manifest object changes nothing current
                Manifest forged = atKill.copy();
                forged.segments.add(new Manifest.SegmentEntry("cam", 1, 99, lateKey, 0, 1, Sha256.of(late), 12));
                forged.state = JobState.READY;
                store.putBytes(ObjectKeys.NONE.manifest(job, 1), ManifestCodec.encode(forged), "application/json");
                Manifest current = state(store, job).orElseThrow();
                assertThat(current.generation).isEqualTo(2);
                assertThat(current.segments).noneMatch(s -> s.key().equals(lateKey));

                Awaits.until(() -> state(store, job).map(m -> m.segments.stream()
                        .filter(x -> x.generation() == 2).map(Manifest.SegmentEntry::trackId).distinct().count() == 2
                        && m.segments.stream().filter(x -> x.generation() == 2).count() >= 4).orElse(false), 60);
                pub.stop(); // the meeting ends
                Thread.sleep(500);
                gen2.requestStop("test: meeting ended");
                t.join(180_000);
                assertThat(gen2.exitCode()).isEqualTo(RecordingRun.EXIT_DONE);
            }
            Manifest m = state(store, job).orElseThrow();
            assertThat(m.state).isEqualTo(JobState.PARTIAL);
            assertThat(m.generation).isEqualTo(2);
            assertThat(m.generations).extracting(Manifest.GenerationRun::generation).containsExactly(1L, 2L);
            assertThat(m.segments).noneMatch(s -> s.key().equals(job + "/1/cam/99"));
            assertThat(m.segments).anyMatch(s -> s.generation() == 1).anyMatch(s -> s.generation() == 2);
            // the gap: from generation 1's last confirmed media to generation 2's first, on each track
            for (String track : List.of("cam", "mic")) {
                long g1End = m.segments.stream().filter(s -> s.trackId().equals(track) && s.generation() == 1)
                        .mapToLong(Manifest.SegmentEntry::endMs).max().orElseThrow();
                long g2Start = m.segments.stream().filter(s -> s.trackId().equals(track) && s.generation() == 2)
                        .mapToLong(Manifest.SegmentEntry::startMs).min().orElseThrow();
                List<Manifest.TimeRange> gaps = m.missingRanges.stream().filter(r -> r.trackId().equals(track)).toList();
                assertThat(gaps).as(track + " gaps").hasSize(1);
                assertThat(gaps.get(0).fromMs()).isEqualTo(g1End);
                assertThat(gaps.get(0).toMs()).isEqualTo(g2Start);
                assertThat(gaps.get(0).durationMs()).isPositive();
                assertThat(gaps.get(0).fromOffsetMs()).isNotNull();
            }
            Awaits.assertChecksumsMatch(store, m);
            Path composite = tmp.resolve("composite.mp4");
            store.download(m.result.compositeKey(), composite);
            Ffmpeg ff = new Ffmpeg("ffmpeg", "ffprobe");
            // the gap is filled with black/silence, so the composite keeps the meeting's timeline
            long origin = m.segments.stream().mapToLong(Manifest.SegmentEntry::startMs).min().orElseThrow();
            long end = m.segments.stream().mapToLong(Manifest.SegmentEntry::endMs).max().orElseThrow();
            assertThat(ff.duration(composite)).isCloseTo((end - origin) / 1000.0, within(1.0));
            assertThat(ff.streamTypes(composite)).contains("video", "audio");
        }
    }

    static Optional<Manifest> state(ObjectStore store, String job) {
        try {
            return ManifestStore.readCurrent(store, ObjectKeys.NONE, job);
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }
}
