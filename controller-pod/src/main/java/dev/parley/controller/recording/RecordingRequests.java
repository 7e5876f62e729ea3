package dev.parley.controller.recording;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.db.Db;
import dev.parley.platform.etcd.EtcdKeys;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.micronaut.context.annotation.Context;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Mirrors the recording jobs that are not final into etcd as {@code /parley/v1/recordings/{job}/request}, where
 * the operator picks them up and creates the RecordingJob resource (docs/recording.md). Level-triggered from
 * PostgreSQL instead of a post-commit call: a crash between commit and put loses nothing, because the next round
 * of any controller pod rebuilds the keys from the rows. A stop (command or meeting end) flips
 * {@code stop_requested}; a final job (ready/partial/failed) or a deleted row removes its key.
 * Every pod runs it; the writes are idempotent and only made when the stored value differs.
 */
@Context
@Singleton
public final class RecordingRequests {
    private static final Logger LOG = LoggerFactory.getLogger(RecordingRequests.class);
    static final long PERIOD_MS = 1000;
    private static final String SUFFIX = "/request";

    private final Db db;
    private final Client etcd;
    private final ScheduledExecutorService exec = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "recording-requests");
        t.setDaemon(true);
        return t;
    });

    public RecordingRequests(Db db, Client etcd) {
        this.db = db;
        this.etcd = etcd;
        exec.scheduleWithFixedDelay(this::round, 300, PERIOD_MS, TimeUnit.MILLISECONDS);
    }

    void round() {
        try {
            sync();
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            LOG.warn("recording request sync failed: {}", e.toString());
        }
    }

    /** One pass: put the wanted keys that differ, delete request keys no longer wanted. */
    void sync() throws Exception {
        Map<String, String> wanted = wanted();
        Map<String, String> stored = new HashMap<>();
        for (KeyValue kv : etcd.getKVClient().get(EtcdKeys.bytes(EtcdKeys.recordingsPrefix()),
                GetOption.builder().isPrefix(true).build()).get(3, TimeUnit.SECONDS).getKvs()) {
            String key = kv.getKey().toString(StandardCharsets.UTF_8);
            if (key.endsWith(SUFFIX)) {
                stored.put(key, kv.getValue().toString(StandardCharsets.UTF_8));
            }
        }
        for (Map.Entry<String, String> w : wanted.entrySet()) {
            if (!w.getValue().equals(stored.get(w.getKey()))) {
                etcd.getKVClient().put(EtcdKeys.bytes(w.getKey()), EtcdKeys.bytes(w.getValue())).get(3, TimeUnit.SECONDS);
            }
        }
        for (String key : stored.keySet()) {
            if (!wanted.containsKey(key)) {
                etcd.getKVClient().delete(EtcdKeys.bytes(key)).get(3, TimeUnit.SECONDS);
            }
        }
    }

    /** key → JSON value for every job that is not final; the value is deterministic so unchanged jobs cost no write. */
    private Map<String, String> wanted() {
        return db.read(c -> {
            Map<String, String> out = new HashMap<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT j.job_id, j.meeting_id, m.tenant_id, m.region, "
                    + "j.created_at, j.stop_requested FROM recording_jobs j JOIN meetings m ON m.meeting_id = j.meeting_id "
                    + "WHERE j.state IN ('requested','starting','recording','finalizing')");
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String job = rs.getString(1);
                    ObjectNode v = JsonBody.obj();
                    v.put("job_id", job);
                    v.put("meeting_id", rs.getString(2));
                    v.put("tenant_id", rs.getString(3));
                    v.put("region", rs.getString(4));
                    v.put("requested_at", rs.getTimestamp(5).toInstant().toString());
                    v.put("stop_requested", rs.getBoolean(6));
                    out.put(EtcdKeys.recordingRequest(job), v.toString());
                }
            }
            return out;
        });
    }

    @PreDestroy
    void stop() {
        exec.shutdownNow();
    }
}
