package dev.parley.recorder.manifest;

import dev.parley.recorder.storage.ObjectKeys;
import dev.parley.recorder.storage.ObjectStore;
import java.util.Comparator;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job's manifest, fenced by generation.
 *
 * <p>Each generation writes only its own object, {@code {prefix}{job}/manifest/{generation:020d}.json}
 * ({@link ObjectKeys}); the job's
 * manifest is the one with the highest generation. A takeover copies the previous generation's confirmed
 * segments into the new object. So a stale generation's late write can only touch its own, superseded
 * object and can never change the current manifest, even on stores that ignore conditional writes
 * (s3proxy 2.6.0 does, see ObjectStoreIT). On top of that every write is preceded by (1) the etcd fence
 * ({@link GenerationFence}) and (2) a listing that refuses to write when a higher generation's manifest
 * exists, and sent with If-Match on our own last ETag for stores that enforce it (AWS S3).
 */
public final class ManifestStore {
    private static final Logger LOG = LoggerFactory.getLogger(ManifestStore.class);

    private final ObjectStore store;
    private final ObjectKeys keys;
    private final String jobId;
    private final long generation;
    private final GenerationFence fence;
    private Manifest current;
    private String etag;

    public ManifestStore(ObjectStore store, ObjectKeys keys, String jobId, long generation, GenerationFence fence) {
        this.store = store;
        this.keys = keys;
        this.jobId = jobId;
        this.generation = generation;
        this.fence = fence;
    }

    /** The job's current manifest: the highest generation's object. */
    public static Optional<Manifest> readCurrent(ObjectStore store, ObjectKeys keys, String jobId) {
        return highestGeneration(store, keys, jobId).flatMap(g -> store.getDocument(keys.manifest(jobId, g)))
                .map(d -> ManifestCodec.decode(d.body()));
    }

    static Optional<Long> highestGeneration(ObjectStore store, ObjectKeys keys, String jobId) {
        String prefix = keys.manifests(jobId);
        return store.list(prefix).stream()
                .map(o -> o.key().substring(prefix.length()))
                .filter(n -> n.endsWith(".json"))
                .map(n -> Long.parseLong(n.substring(0, n.length() - 5)))
                .max(Comparator.naturalOrder());
    }

    /**
     * Starts this generation's manifest from the previous generation's (its confirmed segments and history
     * carry over). Refuses when a higher generation already wrote one.
     */
    public synchronized Manifest takeOver(String pod, long nowMs) throws StaleGenerationException {
        fence.verifyCurrent();
        Optional<Long> highest = highestGeneration(store, keys, jobId);
        if (highest.isPresent() && highest.get() > generation) {
            throw new StaleGenerationException("generation " + highest.get() + " already owns job " + jobId);
        }
        Manifest m;
        if (highest.isPresent() && highest.get() == generation) {
            // this generation restarted in place (same pod name, e.g. container restart): continue its manifest
            var doc = store.getDocument(keys.manifest(jobId, generation)).orElseThrow();
            m = ManifestCodec.decode(doc.body());
            etag = doc.etag();
        } else {
            m = highest.flatMap(g -> store.getDocument(keys.manifest(jobId, g))).map(d -> ManifestCodec.decode(d.body()))
                    .orElseGet(Manifest::new);
            etag = null;
            m.revision = 0;
        }
        m.jobId = jobId;
        m.generation = generation;
        m.pod = pod;
        m.state = JobState.STARTING;
        m.generations.add(new Manifest.GenerationRun(generation, pod, nowMs, null));
        current = m;
        write(nowMs);
        LOG.info("generation {} took over job {} ({} confirmed segments carried over)", generation, jobId,
                m.segments.size());
        return m.copy();
    }

    /** Applies {@code change} and writes it, if (and only if) this generation is still current. */
    public synchronized Manifest update(Consumer<Manifest> change, long nowMs) throws StaleGenerationException {
        if (current == null) {
            throw new IllegalStateException("takeOver first");
        }
        fence.verifyCurrent();
        Optional<Long> highest = highestGeneration(store, keys, jobId);
        if (highest.isPresent() && highest.get() > generation) {
            throw new StaleGenerationException("generation " + highest.get() + " superseded " + generation);
        }
        Manifest next = current.copy();
        change.accept(next);
        Manifest previous = current;
        current = next;
        try {
            write(nowMs);
        } catch (RuntimeException e) {
            current = previous; // not confirmed: the caller retries the same change
            throw e;
        }
        return current.copy();
    }

    public synchronized Manifest snapshot() {
        return current == null ? null : current.copy();
    }

    private void write(long nowMs) {
        current.updatedAtMs = nowMs;
        current.revision++;
        try {
            etag = store.putDocumentConditionally(keys.manifest(jobId, generation), ManifestCodec.encode(current), etag);
        } catch (RuntimeException e) {
            current.revision--;
            throw e;
        }
    }
}
