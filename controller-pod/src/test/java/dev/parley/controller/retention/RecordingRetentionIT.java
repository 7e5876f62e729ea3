package dev.parley.controller.retention;

import dev.parley.testsupport.metrics.ExportedSeries;
import dev.parley.controller.recording.RecordingStorageFixture;
import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.testsupport.s3.S3Proxy;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import software.amazon.awssdk.services.s3.S3Client;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The retention job on real PostgreSQL, etcd and s3proxy with two controller pods running it at the same time:
 * every expired recording (tenant period, or the default for tenants without one) loses all its objects — both
 * generations, a stale generation's unreferenced segment, manifests, final files — and its row, exactly once
 * across the two pods, and a recording whose row another pod holds is skipped rather than waited for; recordings still within their period, kept forever, or still running are untouched; a
 * storage outage leaves the row for the next run; a second run finds nothing; the schedule runs it on its own.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RecordingRetentionIT {
    /** What a two-generation recording leaves in the bucket (the stale g1 segment 2 is in no manifest). */
    static final String[] OBJECTS = {"1/cam/0", "1/cam/1", "1/mic/0", "1/cam/2", "2/cam/0", "2/mic/0",
            "manifest/00000000000000000001.json", "manifest/00000000000000000002.json", "2/final/composite.mp4",
            "2/final/cam.webm"};
    static ControllerHarness h;
    static S3Proxy s3;
    static S3Client objects;

    @BeforeAll
    static void up() throws Exception {
        s3 = S3Proxy.start(S3Proxy.DEFAULT_BUCKET, S3Proxy.Backend.FILESYSTEM);
        objects = RecordingStorageFixture.client(s3);
        h = new ControllerHarness(1);
        RecordingStorageFixture.startController(h, "controller-0", s3, Map.of());
        RecordingStorageFixture.startController(h, "controller-1", s3, Map.of());
    }

    @AfterAll
    static void down() {
        RecordingStorageFixture.closeAll(h, objects, s3);
    }

    /** A finished two-generation recording with its objects, finished {@code ageSql} ago (a PostgreSQL interval). */
    static String finished(Scenario s, String state, String age) throws Exception {
        String job = RecordingStorageFixture.startRecording(s, 0);
        for (String o : OBJECTS) {
            RecordingStorageFixture.put(objects, s3.bucket(), job + "/" + o, (job + o).getBytes(StandardCharsets.UTF_8));
        }
        RecordingStorageFixture.report(h, 0, job, "{\"generation\":2,\"state\":\"" + state + "\",\"missing_ranges\":[],"
                + "\"result\":{\"composite_key\":\"" + job + "/2/final/composite.mp4\"}}");
        sql("UPDATE recording_jobs SET finished_at = now() - interval '" + age + "' WHERE job_id = '" + job + "'");
        return job;
    }

    static void sql(String statement) throws Exception {
        try (Connection c = h.db(); Statement st = c.createStatement()) {
            st.executeUpdate(statement);
        }
    }

    /** Another meeting of a tenant with a 1-day period (the first one has a recording running). */
    static Scenario shortRetention2() throws Exception {
        Scenario s = new Scenario(h).meeting(false);
        sql("INSERT INTO tenant_recording_settings (tenant_id, retention_days) VALUES ('" + s.tenant + "', 1)");
        return s;
    }

    static RecordingRetention retention(int pod) {
        return h.controllers.get(pod).getBean(RecordingRetention.class);
    }

    static double counter(int pod, String name) {
        ApplicationContext ctx = h.controllers.get(pod);
        return ctx.getBean(MeterRegistry.class).counter(name).count();
    }

    static List<String> keys(String job) {
        return RecordingStorageFixture.keys(objects, s3.bucket(), job + "/");
    }

    @Test
    @Order(1) // its counters are absolute: it runs before the other test adds to them
    void expiredRecordingsAreDeletedOnceAcrossTwoPodsAndTheRestIsKept() throws Exception {
        Scenario shortRetention = new Scenario(h).meeting(false);
        sql("INSERT INTO tenant_recording_settings (tenant_id, retention_days) VALUES ('" + shortRetention.tenant + "', 1)");
        Scenario defaultRetention = new Scenario(h).meeting(false); // no row: PARLEY_RECORDING_RETENTION_DAYS (30)
        Scenario keepForever = new Scenario(h).meeting(false);
        sql("INSERT INTO tenant_recording_settings (tenant_id, retention_days) VALUES ('" + keepForever.tenant + "', NULL)");

        Set<String> expired = new HashSet<>();
        String[] states = {"ready", "partial", "failed"};
        for (int i = 0; i < 6; i++) {
            expired.add(finished(shortRetention, states[i % 3], "2 days"));
        }
        expired.add(finished(defaultRetention, "ready", "31 days"));
        Set<String> kept = new HashSet<>();
        kept.add(finished(shortRetention, "ready", "1 hour"));
        kept.add(finished(defaultRetention, "partial", "2 days"));
        kept.add(finished(keepForever, "ready", "400 days"));
        // still running, created long ago: never the retention job's business
        String running = RecordingStorageFixture.startRecording(shortRetention, 0);
        RecordingStorageFixture.put(objects, s3.bucket(), running + "/1/cam/0", new byte[]{1});
        sql("UPDATE recording_jobs SET created_at = now() - interval '90 days' WHERE job_id = '" + running + "'");
        kept.add(running);

        // both pods at once (own threads: the common pool has one worker on a 2-core machine)
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pods = Executors.newFixedThreadPool(2);
        List<CompletableFuture<List<RecordingRetention.Deletion>>> runs = new ArrayList<>();
        for (int pod = 0; pod < 2; pod++) {
            RecordingRetention job = retention(pod);
            runs.add(CompletableFuture.supplyAsync(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                return job.runOnce();
            }, pods));
        }
        go.countDown();
        List<RecordingRetention.Deletion> a = runs.get(0).get(60, TimeUnit.SECONDS);
        List<RecordingRetention.Deletion> b = runs.get(1).get(60, TimeUnit.SECONDS);
        pods.shutdown();
        List<String> all = new ArrayList<>();
        a.forEach(d -> all.add(d.jobId().toString()));
        b.forEach(d -> all.add(d.jobId().toString()));
        System.out.println("retention: pod 0 deleted " + a.size() + ", pod 1 deleted " + b.size());
        assertThat(all).as("each expired recording deleted exactly once").hasSize(expired.size())
                .containsExactlyInAnyOrderElementsOf(expired);
        for (RecordingRetention.Deletion d : a) {
            assertThat(d.objects()).isEqualTo(OBJECTS.length);
        }

        for (String job : expired) {
            assertThat(keys(job)).as("objects of " + job).isEmpty();
            assertThat(h.count("SELECT count(*) FROM recording_jobs WHERE job_id = '" + job + "'")).isZero();
        }
        for (String job : kept) {
            assertThat(keys(job)).as("objects of " + job).isNotEmpty();
            assertThat(h.count("SELECT count(*) FROM recording_jobs WHERE job_id = '" + job + "'")).isEqualTo(1);
        }
        assertThat(counter(0, "parley_recording_retention_deleted") + counter(1, "parley_recording_retention_deleted"))
                .isEqualTo(expired.size());
        assertThat(counter(0, "parley_recording_retention_objects_deleted") + counter(1, "parley_recording_retention_objects_deleted"))
                .isEqualTo(expired.size() * OBJECTS.length);
        var prom = h.call(h.base(0), "GET", "/prometheus", null, null, null, null);
        assertThat(prom.raw()).contains("parley_recording_retention_deleted_total");
        assertThat(ExportedSeries.missingFrom(prom.raw(), "controller-recordings")).as("docs/observability.md").isEmpty();

        // idempotent: nothing left to do
        assertThat(retention(0).runOnce()).isEmpty();
        assertThat(retention(1).runOnce()).isEmpty();

        // a recording another pod is deleting (row locked) is skipped, not waited for
        String lockedJob = finished(defaultRetention, "ready", "35 days");
        String freeJob = finished(shortRetention2(), "failed", "5 days");
        try (Connection other = h.db()) {
            other.setAutoCommit(false);
            try (Statement st = other.createStatement()) {
                st.executeQuery("SELECT 1 FROM recording_jobs WHERE job_id = '" + lockedJob + "' FOR UPDATE").close();
            }
            long t0 = System.nanoTime();
            assertThat(retention(1).runOnce()).extracting(d -> d.jobId().toString()).containsExactly(freeJob);
            assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0)).isLessThan(20);
            assertThat(keys(lockedJob)).hasSize(OBJECTS.length);
            other.rollback();
        }
        assertThat(retention(1).runOnce()).extracting(d -> d.jobId().toString()).containsExactly(lockedJob);

        // storage down: the row stays (counted as a failure), the next run deletes it
        String late = finished(defaultRetention, "ready", "40 days");
        double failuresBefore = counter(0, "parley_recording_retention_failures");
        s3.stop();
        try {
            assertThat(retention(0).runOnce()).isEmpty();
        } finally {
            s3.restart();
        }
        assertThat(counter(0, "parley_recording_retention_failures")).isEqualTo(failuresBefore + 1);
        assertThat(h.count("SELECT count(*) FROM recording_jobs WHERE job_id = '" + late + "'")).isEqualTo(1);
        assertThat(keys(late)).hasSize(OBJECTS.length);
        List<RecordingRetention.Deletion> retried = retention(0).runOnce();
        assertThat(retried).extracting(d -> d.jobId().toString()).containsExactly(late);
        assertThat(keys(late)).isEmpty();
        assertThat(h.count("SELECT count(*) FROM recording_jobs WHERE job_id = '" + late + "'")).isZero();

        // the schedule itself (PARLEY_RECORDING_RETENTION_INTERVAL / _INITIAL_DELAY) runs it without being asked
        String scheduled = finished(defaultRetention, "partial", "45 days");
        RecordingStorageFixture.startController(h, "controller-2", s3, Map.of(
                "parley.recording.retention.initial.delay", "1s", "parley.recording.retention.interval", "1s"));
        await().atMost(Duration.ofSeconds(60)).until(() ->
                h.count("SELECT count(*) FROM recording_jobs WHERE job_id = '" + scheduled + "'") == 0);
        assertThat(keys(scheduled)).isEmpty();
        assertThat(counter(2, "parley_recording_retention_deleted")).isEqualTo(1);
    }

    @Test
    @Order(2)
    void aRecordingWrittenUnderAStoragePrefixIsDeletedThere() throws Exception {
        // RecordingJob.spec.output.prefix: the recorder writes <prefix><job>/... and reports the prefixed composite key
        Scenario s = shortRetention2();
        String job = RecordingStorageFixture.startRecording(s, 0);
        String prefix = "tenant-a/2026/";
        for (String o : OBJECTS) {
            RecordingStorageFixture.put(objects, s3.bucket(), prefix + job + "/" + o, o.getBytes(StandardCharsets.UTF_8));
        }
        // a neighbour under the same prefix that is not this job's
        RecordingStorageFixture.put(objects, s3.bucket(), prefix + "other-job/1/cam/0", new byte[]{1});
        RecordingStorageFixture.report(h, 0, job, "{\"generation\":2,\"state\":\"ready\",\"missing_ranges\":[],"
                + "\"result\":{\"composite_key\":\"" + prefix + job + "/2/final/composite.mp4\"}}");
        sql("UPDATE recording_jobs SET finished_at = now() - interval '2 days' WHERE job_id = '" + job + "'");

        List<RecordingRetention.Deletion> done = retention(0).runOnce();
        assertThat(done).extracting(d -> d.jobId().toString()).containsExactly(job);
        assertThat(done.get(0).objects()).isEqualTo(OBJECTS.length);
        assertThat(RecordingStorageFixture.keys(objects, s3.bucket(), prefix + job + "/")).as("prefixed objects").isEmpty();
        assertThat(RecordingStorageFixture.keys(objects, s3.bucket(), prefix + "other-job/")).hasSize(1);
        assertThat(h.count("SELECT count(*) FROM recording_jobs WHERE job_id = '" + job + "'")).isZero();
    }
}
