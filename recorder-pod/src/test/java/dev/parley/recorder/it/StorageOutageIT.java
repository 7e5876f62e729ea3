package dev.parley.recorder.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.recorder.RecordingRun;
import dev.parley.recorder.config.RecorderConfig;
import dev.parley.recorder.manifest.JobState;
import dev.parley.recorder.manifest.Manifest;
import dev.parley.recorder.manifest.ManifestStore;
import dev.parley.recorder.media.LoopbackTrackSources;
import dev.parley.recorder.metrics.RecorderMetrics;
import dev.parley.recorder.storage.ObjectKeys;
import dev.parley.recorder.storage.ObjectStore;
import dev.parley.recorder.storage.S3Clients;
import dev.parley.testsupport.etcd.EtcdCluster;
import dev.parley.recorder.testing.RecorderEnv;
import dev.parley.recorder.testing.RtpPublisher;
import dev.parley.testsupport.s3.S3Proxy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * s3proxy is stopped mid-recording (connections refused) and started again on the same port. With enough
 * local buffer nothing is lost; with a tiny buffer the dropped segments are reported as exactly the missing
 * ranges. The buffered case runs the 20 s outage; the overflow case needs only a few segments closed
 * during the outage, so 6 s keeps the default suite short (-Dparley.recorder.overflow.outage=20 for 20 s there).
 */
class StorageOutageIT {
    static final int OUTAGE = Integer.getInteger("parley.recorder.outage", 20);
    static final int OVERFLOW_OUTAGE = Integer.getInteger("parley.recorder.overflow.outage", 6);

    @TempDir
    static Path tmp;
    static EtcdCluster etcd;
    static S3Proxy s3;

    @BeforeAll
    static void up() throws Exception {
        etcd = EtcdCluster.start(1);
        s3 = S3Proxy.start("recordings", S3Proxy.Backend.FILESYSTEM); // objects survive the outage
    }

    @AfterAll
    static void down() throws Exception {
        s3.close();
        etcd.close();
    }

    @Test
    void outageShorterThanTheBufferLosesNothing() throws Exception {
        Result r = record("job-outage-buffered", 64L << 20, OUTAGE);
        Manifest m = r.manifest;
        assertThat(m.state).isEqualTo(JobState.READY);
        assertThat(m.missingRanges).isEmpty();
        assertThat(m.lost).isEmpty();
        int expected = (int) Math.ceil((double) media(OUTAGE) / 2);
        assertThat(m.segments.stream().filter(s -> s.trackId().equals("cam"))).hasSize(expected);
        assertThat(m.segments.stream().filter(s -> s.trackId().equals("mic"))).hasSize(expected);
        assertThat(r.metrics.total(RecorderMetrics.UPLOAD_RETRIES)).as("uploads retried during the outage").isPositive();
        assertThat(r.metrics.total(RecorderMetrics.SEGMENTS_DROPPED)).isZero();
        try (ObjectStore store = store()) {
            Awaits.assertChecksumsMatch(store, m);
        }
    }

    @Test
    void outageLongerThanTheBufferIsPartialWithTheExactDroppedRanges() throws Exception {
        // room for about one video segment: most segments closed during the outage are dropped
        Result r = record("job-outage-overflow", 60_000, OVERFLOW_OUTAGE);
        Manifest m = r.manifest;
        assertThat(m.state).isEqualTo(JobState.PARTIAL);
        assertThat(m.lost).isNotEmpty().allMatch(l -> l.reason().contains("local buffer full"));
        assertThat(r.metrics.total(RecorderMetrics.SEGMENTS_DROPPED)).isEqualTo(m.lost.size());
        for (String track : List.of("cam", "mic")) {
            List<Manifest.TimeRange> lost = merge(m.lost.stream().filter(l -> l.trackId().equals(track)).toList());
            List<Manifest.TimeRange> missing = m.missingRanges.stream().filter(x -> x.trackId().equals(track)).toList();
            // what is reported missing is exactly what was dropped, to the millisecond
            assertThat(missing).extracting(Manifest.TimeRange::fromMs).isEqualTo(lost.stream().map(Manifest.TimeRange::fromMs).toList());
            assertThat(missing).extracting(Manifest.TimeRange::toMs).isEqualTo(lost.stream().map(Manifest.TimeRange::toMs).toList());
            // and segments + missing ranges tile the track's timeline without holes or overlaps
            List<long[]> tiles = new ArrayList<>();
            m.segments.stream().filter(s -> s.trackId().equals(track)).forEach(s -> tiles.add(new long[] {s.startMs(), s.endMs()}));
            missing.forEach(x -> tiles.add(new long[] {x.fromMs(), x.toMs()}));
            tiles.sort(Comparator.comparingLong(t -> t[0]));
            for (int i = 1; i < tiles.size(); i++) {
                assertThat(tiles.get(i)[0]).as(track + " tile " + i).isEqualTo(tiles.get(i - 1)[1]);
            }
        }
        try (ObjectStore store = store()) {
            Awaits.assertChecksumsMatch(store, m);
        }
    }

    record Result(Manifest manifest, RecorderMetrics metrics) {
    }

    /** Seconds of media around an outage: a few segments before and after it. */
    static int media(int outage) {
        return outage + 8;
    }

    private Result record(String job, long bufferBytes, int outage) throws Exception {
        int mediaSeconds = media(outage);
        int vp = RtpPublisher.freeUdpPort();
        int ap = RtpPublisher.freeUdpPort();
        Map<String, String> env = RecorderEnv.of(etcd, s3, job, 1, "cam:vp8:" + vp + ",mic:opus:" + ap,
                tmp.resolve(job), 2);
        env.put("PARLEY_RECORDER_BUFFER_BYTES", Long.toString(bufferBytes));
        RecorderConfig cfg = RecorderConfig.fromEnv(env);
        List<JobState> reported = new java.util.concurrent.CopyOnWriteArrayList<>();
        RecordingRun run = new RecordingRun(cfg, new LoopbackTrackSources(cfg.rtpTracks()), m -> reported.add(m.state));
        Thread t = Thread.ofPlatform().start(run::run);
        Awaits.until(() -> reported.contains(JobState.STARTING), 60);
        Thread.sleep(500);
        try (RtpPublisher pub = RtpPublisher.start(vp, ap, mediaSeconds, tmp.resolve(job + "-pub.log"))) {
            Awaits.until(() -> run.metrics().total(RecorderMetrics.SEGMENTS_UPLOADED) >= 2, 30);
            s3.stop();
            Thread.sleep(outage * 1000L);
            s3.restart(); // same port
            assertThat(pub.waitFor(mediaSeconds + 60)).isTrue();
        }
        Thread.sleep(300);
        run.requestStop("test: meeting ended");
        t.join(180_000);
        assertThat(run.exitCode()).isEqualTo(RecordingRun.EXIT_DONE);
        try (ObjectStore store = store()) {
            return new Result(ManifestStore.readCurrent(store, ObjectKeys.NONE, job).orElseThrow(), run.metrics());
        }
    }

    private static ObjectStore store() {
        var cfg = RecorderConfig.fromEnv(RecorderEnv.of(etcd, s3, "x", 1, "", tmp, 2));
        return new ObjectStore(S3Clients.create(cfg.s3()), cfg.s3().bucket());
    }

    private static List<Manifest.TimeRange> merge(List<Manifest.TimeRange> ranges) {
        List<Manifest.TimeRange> sorted = new ArrayList<>(ranges);
        sorted.sort(Comparator.comparingLong(Manifest.TimeRange::fromMs));
        List<Manifest.TimeRange> out = new ArrayList<>();
        for (Manifest.TimeRange r : sorted) {
            if (!out.isEmpty() && r.fromMs() <= out.get(out.size() - 1).toMs()) {
                Manifest.TimeRange last = out.remove(out.size() - 1);
                out.add(Manifest.TimeRange.of(last.trackId(), last.fromMs(), Math.max(last.toMs(), r.toMs()), last.reason()));
            } else {
                out.add(r);
            }
        }
        return out;
    }
}
