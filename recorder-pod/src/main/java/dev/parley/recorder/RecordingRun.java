package dev.parley.recorder;

import dev.parley.recorder.config.RecorderConfig;
import dev.parley.recorder.finalize.Finalizer;
import dev.parley.recorder.http.AdminServer;
import dev.parley.recorder.lease.RunnerLease;
import dev.parley.recorder.manifest.JobState;
import dev.parley.recorder.manifest.Manifest;
import dev.parley.recorder.manifest.ManifestCodec;
import dev.parley.recorder.manifest.ManifestStore;
import dev.parley.recorder.manifest.StaleGenerationException;
import dev.parley.recorder.media.TrackPipeline;
import dev.parley.recorder.media.TrackSource;
import dev.parley.recorder.media.TrackSourceFactory;
import dev.parley.recorder.metrics.RecorderMetrics;
import dev.parley.recorder.segment.Ffmpeg;
import dev.parley.recorder.state.JobStateReporter;
import dev.parley.recorder.storage.ObjectStore;
import dev.parley.recorder.storage.S3Clients;
import dev.parley.recorder.upload.SegmentUploader;
import io.etcd.jetcd.Client;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one generation of one recording job from lease to final state. Exit codes: 0 finished (the manifest
 * says ready, partial or failed), 3 superseded by a higher generation (wrote nothing after noticing),
 * 1 could not finish (the operator may start the next generation).
 */
public final class RecordingRun {
    private static final Logger LOG = LoggerFactory.getLogger(RecordingRun.class);
    public static final int EXIT_DONE = 0;
    public static final int EXIT_FAILED = 1;
    public static final int EXIT_SUPERSEDED = 3;

    private final RecorderConfig cfg;
    private final TrackSourceFactory sources;
    private final JobStateReporter reporter;
    private final RecorderMetrics metrics = new RecorderMetrics();
    private final CountDownLatch stopRequested = new CountDownLatch(1);
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile String stopReason;
    private volatile boolean ready;
    private volatile ManifestStore manifest;
    private volatile AdminServer admin;
    private volatile int exitCode = -1;

    public RecordingRun(RecorderConfig cfg, TrackSourceFactory sources, JobStateReporter reporter) {
        this.cfg = cfg;
        this.sources = sources;
        this.reporter = reporter;
    }

    /** Stop recording and finalize (signal, POST /stop, meeting end). Idempotent. */
    public void requestStop(String why) {
        if (stopReason == null) {
            stopReason = why;
            LOG.info("stop requested: {}", why);
        }
        stopRequested.countDown();
    }

    public void awaitFinished() throws InterruptedException {
        finished.await();
    }

    public int exitCode() {
        return exitCode;
    }

    public RecorderMetrics metrics() {
        return metrics;
    }

    /** This generation's manifest as last written, or null before the takeover. */
    public Manifest currentManifest() {
        ManifestStore ms = manifest;
        return ms == null ? null : ms.snapshot();
    }

    public int adminPort() {
        return admin == null ? -1 : admin.port();
    }

    public int run() {
        try {
            exitCode = runInner();
        } catch (RuntimeException | IOException e) {
            LOG.error("recording generation {} of job {} crashed", cfg.generation(), cfg.jobId(), e);
            exitCode = EXIT_FAILED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            exitCode = EXIT_FAILED;
        } finally {
            finished.countDown();
        }
        return exitCode;
    }

    private int runInner() throws IOException, InterruptedException {
        LOG.info("recorder starting: {}", cfg.describe());
        admin = new AdminServer(cfg.bindAddress(), cfg.internalPort(), metrics, () -> ready,
                () -> manifest == null || manifest.snapshot() == null ? null : ManifestCodec.encode(manifest.snapshot()),
                this::requestStop, cfg.internalSecret());
        admin.postAction("/resubscribe", sources::resubscribe, cfg.internalSecret());
        LOG.info("internal port {}", admin.port());
        try (Client etcd = Client.builder().endpoints(cfg.etcdEndpoints().toArray(String[]::new)).build();
             RunnerLease lease = new RunnerLease(etcd, cfg.jobId(), cfg.generation(), cfg.podName(),
                     cfg.leaseTtlSeconds());
             ObjectStore store = new ObjectStore(S3Clients.create(cfg.s3()), cfg.s3().bucket())) {
            try {
                lease.acquire();
            } catch (StaleGenerationException e) {
                LOG.warn("not running: {}", e.getMessage());
                return EXIT_SUPERSEDED;
            }
            if (cfg.createBucket()) {
                store.createBucketIfMissing();
            }
            ManifestStore ms = new ManifestStore(store, cfg.objectKeys(), cfg.jobId(), cfg.generation(), lease);
            try {
                reporter.report(ms.takeOver(cfg.podName(), now()));
            } catch (StaleGenerationException e) {
                LOG.warn("not running: {}", e.getMessage());
                return EXIT_SUPERSEDED;
            }
            manifest = ms;
            return record(lease, store, ms);
        } finally {
            ready = false;
            admin.close();
        }
    }

    private int record(RunnerLease lease, ObjectStore store, ManifestStore ms) throws IOException, InterruptedException {
        Path spool = cfg.spoolDir();
        Files.createDirectories(spool);
        SegmentUploader uploader = new SegmentUploader(store, ms, cfg.objectKeys(), cfg.jobId(), cfg.generation(),
                cfg.bufferBytes(), metrics, RecordingRun::now, 250, 4000, () -> requestStop("fenced by a newer generation"));
        uploader.start();
        Map<String, TrackPipeline> pipelines = new LinkedHashMap<>();
        Consumer<dev.parley.recorder.segment.ClosedSegment> sink = uploader::submit;
        if (!addSources(ms, pipelines, sources.open(), sink)) {
            pipelines.values().forEach(TrackPipeline::close);
            sources.close();
            return EXIT_SUPERSEDED;
        }
        ready = true;
        boolean recordingReported = false;
        long idleNanos = cfg.stopWhenIdleSeconds() * 1_000_000_000L;
        while (stopRequested.getCount() > 0) {
            if (lease.isLost() || uploader.fenced()) {
                break;
            }
            if (!addSources(ms, pipelines, sources.poll(), sink)) {
                break;
            }
            for (TrackSource gone : sources.retired()) {
                TrackPipeline p = pipelines.get(gone.track().trackId());
                if (p != null) {
                    p.removeSource(gone);
                }
            }
            if (sources.failure() != null) {
                requestStop("media source failed: " + sources.failure());
            }
            if (!recordingReported && pipelines.values().stream().anyMatch(TrackPipeline::receivedMedia)) {
                recordingReported = update(ms, m -> m.state = JobState.RECORDING);
            }
            if (idleNanos > 0 && recordingReported) {
                long last = pipelines.values().stream().mapToLong(TrackPipeline::lastPacketNanos).max().orElse(0);
                if (last > 0 && System.nanoTime() - last > idleNanos) {
                    requestStop("meeting ended: no media for " + cfg.stopWhenIdleSeconds() + " s");
                }
            }
            stopRequested.await(200, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
        ready = false;
        sources.close();
        if (lease.isLost() || uploader.fenced()) {
            LOG.warn("generation {} lost the job: stopping without finalizing", cfg.generation());
            pipelines.values().forEach(TrackPipeline::close);
            uploader.close();
            return EXIT_SUPERSEDED;
        }
        if (!update(ms, m -> m.state = JobState.FINALIZING)) {
            pipelines.values().forEach(TrackPipeline::close);
            uploader.close();
            return EXIT_SUPERSEDED;
        }
        for (TrackPipeline p : pipelines.values()) {
            p.stop(30_000);
        }
        List<Manifest.TimeRange> notUploaded = uploader.drain(System.currentTimeMillis()
                + cfg.drainTimeoutSeconds() * 1000);
        if (uploader.fenced()) {
            return EXIT_SUPERSEDED;
        }
        if (!update(ms, m -> m.lost.addAll(notUploaded))) {
            return EXIT_SUPERSEDED;
        }
        Finalizer finalizer = new Finalizer(store, cfg.objectKeys(), new Ffmpeg(cfg.ffmpeg(), cfg.ffprobe()),
                spool.resolve("final"), 300, cfg.tileWidth(), cfg.tileHeight());
        Finalizer.Outcome outcome = finalizer.finalizeJob(ms.snapshot(), cfg.generation());
        long stoppedAt = now();
        boolean written = update(ms, m -> {
            m.state = outcome.state();
            m.missingRanges = new ArrayList<>(outcome.missing());
            m.result = outcome.result();
            m.failureReason = outcome.failureReason();
            List<Manifest.GenerationRun> gens = new ArrayList<>();
            for (Manifest.GenerationRun g : m.generations) {
                gens.add(g.generation() == cfg.generation() && g.stoppedAtMs() == null
                        ? new Manifest.GenerationRun(g.generation(), g.pod(), g.startedAtMs(), stoppedAt) : g);
            }
            m.generations = gens;
        });
        if (!written) {
            return EXIT_SUPERSEDED;
        }
        LOG.info("job {} finished as {} (stop: {}){}", cfg.jobId(), outcome.state().wire(), stopReason,
                outcome.missing().isEmpty() ? "" : " missing " + outcome.missing());
        deleteTree(spool);
        return EXIT_DONE;
    }

    /**
     * New sources: a new track id gets a pipeline (announced in the manifest first), a known one gets a second
     * leg (SFU drain). False if this generation was superseded.
     */
    private boolean addSources(ManifestStore ms, Map<String, TrackPipeline> pipelines, List<TrackSource> added,
                               Consumer<dev.parley.recorder.segment.ClosedSegment> sink) throws InterruptedException {
        List<TrackSource> newTracks = new ArrayList<>();
        for (TrackSource src : added) {
            if (!pipelines.containsKey(src.track().trackId())) {
                newTracks.add(src);
            }
        }
        if (!newTracks.isEmpty() && !update(ms, m -> {
            for (TrackSource src : newTracks) {
                m.tracks.put(src.track().trackId(), new Manifest.TrackInfo(src.track().trackId(),
                        src.track().kindName(), src.track().codec()));
            }
        })) {
            added.forEach(TrackSource::close);
            return false;
        }
        for (TrackSource src : added) {
            TrackPipeline p = pipelines.get(src.track().trackId());
            if (p == null) {
                p = new TrackPipeline(src.track(), cfg.spoolDir().resolve(src.track().trackId()), cfg.segmentSeconds(),
                        cfg.ffmpeg(), metrics, sink);
                pipelines.put(src.track().trackId(), p);
                p.start();
                LOG.info("recording track {} ({})", src.track().trackId(), src.track().codec());
            } else {
                LOG.info("track {}: new leg", src.track().trackId());
            }
            p.addSource(src);
        }
        return true;
    }

    /**
     * Writes a manifest change, retrying storage errors for up to the drain timeout; reports it. False if
     * this generation was superseded.
     */
    private boolean update(ManifestStore ms, Consumer<Manifest> change) throws InterruptedException {
        long deadline = System.currentTimeMillis() + cfg.drainTimeoutSeconds() * 1000;
        long backoff = 250;
        while (true) {
            try {
                Manifest m = ms.update(change, now());
                reporter.report(m);
                return true;
            } catch (StaleGenerationException e) {
                LOG.warn("generation {} superseded: {}", cfg.generation(), e.getMessage());
                return false;
            } catch (RuntimeException e) {
                if (System.currentTimeMillis() > deadline) {
                    throw e;
                }
                LOG.warn("manifest update failed, retrying: {}", e.toString());
                metrics.inc(RecorderMetrics.UPLOAD_RETRIES, 1);
                Thread.sleep(backoff);
                backoff = Math.min(backoff * 2, 4000);
            }
        }
    }

    private static long now() {
        return System.currentTimeMillis();
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            LOG.debug("cleanup of {} failed: {}", dir, e.toString());
        }
    }
}
