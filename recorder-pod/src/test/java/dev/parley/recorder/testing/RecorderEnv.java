package dev.parley.recorder.testing;

import dev.parley.testsupport.etcd.EtcdCluster;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** Environment for a recorder generation against the test's etcd and s3proxy. */
public final class RecorderEnv {
    private RecorderEnv() {
    }

    public static Map<String, String> of(EtcdCluster etcd, S3ProxyServer s3, String job, long generation,
                                         String tracks, Path spool, int segmentSeconds) {
        Map<String, String> env = new HashMap<>();
        env.put("PARLEY_RECORDING_JOB_ID", job);
        env.put("PARLEY_RECORDING_GENERATION", Long.toString(generation));
        env.put("PARLEY_POD_NAME", "recorder-" + job + "-g" + generation);
        env.put("PARLEY_ETCD_ENDPOINTS", etcd.endpointsCsv());
        env.put("PARLEY_LEASE_TTL_SECONDS", "2");
        env.put("PARLEY_S3_ENDPOINT", s3.endpoint().toString());
        env.put("PARLEY_S3_BUCKET", "recordings");
        env.put("PARLEY_S3_ACCESS_KEY", S3ProxyServer.ACCESS_KEY);
        env.put("PARLEY_S3_SECRET_KEY", S3ProxyServer.SECRET_KEY);
        env.put("PARLEY_RECORDER_CREATE_BUCKET", "true");
        env.put("PARLEY_RECORDER_RTP_TRACKS", tracks);
        env.put("PARLEY_RECORDER_SEGMENT_SECONDS", Integer.toString(segmentSeconds));
        env.put("PARLEY_RECORDER_SPOOL_DIR", spool.toString());
        env.put("PARLEY_RECORDER_TILE", "320x180");
        env.put("PARLEY_RECORDER_UPLOAD_TIMEOUT_MS", "3000");
        env.put("PARLEY_RECORDER_DRAIN_TIMEOUT_SECONDS", "60");
        env.put("PARLEY_INTERNAL_PORT", "0");
        return env;
    }
}
