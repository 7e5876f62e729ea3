package dev.parley.controller.retention;

import dev.parley.controller.db.Db;
import dev.parley.controller.recording.RecordingStorage;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Value;
import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Deletes finished recordings after their tenant's retention period: every object under {@code {job}/} (all
 * generations, including a stale generation's segments that no manifest references, the manifests and the final
 * files), then the {@code recording_jobs} row. The period is {@code tenant_recording_settings.retention_days}, or
 * {@code PARLEY_RECORDING_RETENTION_DAYS} (default 30, 0 = keep forever) for tenants without a row; it runs from
 * {@code finished_at} (the moment the job became ready, partial or failed).
 *
 * <p>Every controller pod runs it. One recording is handled per transaction, its row locked with
 * {@code FOR UPDATE SKIP LOCKED}: two pods never work on the same recording, and neither waits for the other. The
 * objects go first and the row last, in that transaction, so a failure (storage down, pod killed) leaves the row
 * and the next run deletes again; deleting objects that are already gone is a no-op. A recording that fails is
 * skipped for the rest of the run, so it can't block the others.
 */
@Singleton
public class RecordingRetention {
    private static final Logger LOG = LoggerFactory.getLogger(RecordingRetention.class);

    private final Db db;
    private final RecordingStorage storage;
    private final int defaultDays;
    private final int batch;
    private final Counter deleted;
    private final Counter objectsDeleted;
    private final Counter bytesDeleted;
    private final Counter failures;

    /** One deleted recording. */
    public record Deletion(UUID jobId, UUID meetingId, UUID tenantId, String state, Instant finishedAt,
                           int retentionDays, int objects, long bytes) {
    }

    public RecordingRetention(Db db, RecordingStorage storage, MeterRegistry meters,
                              @Value("${parley.recording.retention.days:30}") int defaultDays,
                              @Value("${parley.recording.retention.batch:500}") int batch) {
        if (defaultDays < 0 || batch < 1) {
            throw new IllegalArgumentException("PARLEY_RECORDING_RETENTION_DAYS must be >= 0 and the batch >= 1");
        }
        this.db = db;
        this.storage = storage;
        this.defaultDays = defaultDays;
        this.batch = batch;
        this.deleted = Counter.builder("parley_recording_retention_deleted")
                .description("recordings deleted after their retention period (objects and row)").register(meters);
        this.objectsDeleted = Counter.builder("parley_recording_retention_objects_deleted")
                .description("objects deleted by the recording retention job").register(meters);
        this.bytesDeleted = Counter.builder("parley_recording_retention_deleted_bytes")
                .description("bytes of objects deleted by the recording retention job").baseUnit("bytes").register(meters);
        this.failures = Counter.builder("parley_recording_retention_failures")
                .description("recordings whose deletion failed (retried on the next run)").register(meters);
    }

    @Scheduled(fixedDelay = "${parley.recording.retention.interval:1h}",
            initialDelay = "${parley.recording.retention.initial.delay:2m}")
    void scheduled() {
        try {
            runOnce();
        } catch (RuntimeException e) {
            LOG.warn("recording retention run failed: {}", e.toString());
        }
    }

    /** Deletes up to one batch of expired recordings; returns what this pod deleted. */
    public List<Deletion> runOnce() {
        List<Deletion> done = new ArrayList<>();
        if (!storage.configured()) {
            return done;
        }
        List<UUID> failed = new ArrayList<>();
        while (done.size() < batch) {
            UUID[] skip = failed.toArray(UUID[]::new);
            Deletion d;
            try {
                d = db.tx(c -> deleteOne(c, skip));
            } catch (RuntimeException e) {
                failures.increment();
                UUID job = e instanceof JobFailure f ? f.jobId : null;
                LOG.warn("recording retention: deleting recording {} failed, retried on the next run: {}", job,
                        String.valueOf(e.getCause() != null ? e.getCause() : e));
                if (job == null) {
                    break; // the database itself: try again next run
                }
                failed.add(job);
                continue;
            }
            if (d == null) {
                break;
            }
            deleted.increment();
            objectsDeleted.increment(d.objects());
            bytesDeleted.increment(d.bytes());
            LOG.info("recording retention: deleted recording {} of meeting {} (tenant {}, {}, finished {}, retention {} "
                            + "days): {} objects, {} bytes", d.jobId(), d.meetingId(), d.tenantId(), d.state(),
                    d.finishedAt(), d.retentionDays(), d.objects(), d.bytes());
            done.add(d);
        }
        return done;
    }

    /** The oldest expired recording not locked by another pod: objects, then row. Null when there is none. */
    private Deletion deleteOne(Connection c, UUID[] skip) throws SQLException {
        UUID job;
        UUID meeting;
        UUID tenant;
        String state;
        Instant finished;
        int days;
        String location;
        try (PreparedStatement ps = c.prepareStatement("SELECT j.job_id, j.meeting_id, m.tenant_id, j.state, "
                + "j.finished_at, COALESCE(s.retention_days, ?), j.object_location FROM recording_jobs j "
                + "JOIN meetings m ON m.meeting_id = j.meeting_id "
                + "LEFT JOIN tenant_recording_settings s ON s.tenant_id = m.tenant_id "
                + "WHERE j.finished_at IS NOT NULL AND j.state IN ('ready', 'partial', 'failed') "
                + "AND j.job_id <> ALL (?) "
                // tenant row with NULL days = keep forever; default 0 = keep forever
                + "AND CASE WHEN s.tenant_id IS NOT NULL THEN s.retention_days IS NOT NULL "
                + "AND j.finished_at < now() - make_interval(days => s.retention_days) "
                + "ELSE ? > 0 AND j.finished_at < now() - make_interval(days => ?) END "
                + "ORDER BY j.finished_at LIMIT 1 FOR UPDATE OF j SKIP LOCKED")) {
            ps.setInt(1, defaultDays);
            ps.setArray(2, c.createArrayOf("uuid", skip));
            ps.setInt(3, defaultDays);
            ps.setInt(4, defaultDays);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                job = rs.getObject(1, UUID.class);
                meeting = rs.getObject(2, UUID.class);
                tenant = rs.getObject(3, UUID.class);
                state = rs.getString(4);
                finished = rs.getTimestamp(5).toInstant();
                days = rs.getInt(6);
                location = rs.getString(7);
            }
        }
        RecordingStorage.Deleted objects;
        try {
            // the trailing slash keeps another job's keys out, whatever its id
            objects = storage.deletePrefix(job + "/");
            String prefixed = objectPrefix(job, location);
            if (!prefixed.equals(job + "/")) {
                RecordingStorage.Deleted more = storage.deletePrefix(prefixed);
                objects = new RecordingStorage.Deleted(objects.objects() + more.objects(), objects.bytes() + more.bytes());
            }
        } catch (RuntimeException e) {
            throw new JobFailure(job, e); // rolls back: the row stays for the next run
        }
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM recording_jobs WHERE job_id = ?")) {
            ps.setObject(1, job);
            ps.executeUpdate();
        }
        return new Deletion(job, meeting, tenant, state, finished, days, objects.objects(), objects.bytes());
    }

    /**
     * Where a recording's objects live: {@code <job>/}, under the storage prefix its RecordingJob was given
     * ({@code spec.output.prefix}, e.g. {@code tenant-a/2026/<job>/}). The controller does not know that prefix; the
     * recorder reports the composite's full key, so it is read off {@code object_location}.
     */
    static String objectPrefix(UUID job, String objectLocation) {
        String own = job + "/";
        if (objectLocation != null) {
            int at = objectLocation.indexOf(own);
            if (at > 0 && objectLocation.charAt(at - 1) == '/') {
                return objectLocation.substring(0, at) + own;
            }
        }
        return own;
    }

    /** A storage failure for one recording (its row stays). */
    private static final class JobFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient UUID jobId;

        JobFailure(UUID jobId, RuntimeException cause) {
            super("deleting the objects of " + jobId + " failed", cause);
            this.jobId = jobId;
        }
    }
}
