package dev.parley.controller.recording;

import dev.parley.controller.Application;
import dev.parley.controller.config.ParleyConfig;
import dev.parley.controller.testing.ControllerHarness;
import dev.parley.controller.testing.Scenario;
import dev.parley.testsupport.s3.S3Proxy;
import io.micronaut.context.ApplicationContext;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Controllers wired to a real s3proxy the way a pod is (the {@code PARLEY_S3_*} / {@code PARLEY_RECORDING_*}
 * variables map to the {@code parley.s3.*} / {@code parley.recording.*} properties; here they are passed as
 * command-line properties), plus a client to put and list objects as the recorder would.
 */
public final class RecordingStorageFixture {
    private RecordingStorageFixture() {
    }

    /** Starts a controller of the harness with storage settings ({@code extra}: more properties). */
    public static ApplicationContext startController(ControllerHarness h, String pod, S3Proxy s3,
                                                     Map<String, String> extra) throws Exception {
        ParleyConfig cfg = h.config(pod, Map.of());
        List<String> args = new ArrayList<>(List.of("--parley.s3.endpoint=" + s3.endpoint(),
                "--parley.s3.bucket=" + s3.bucket(), "--parley.s3.region=" + s3.region(),
                "--parley.s3.access.key=" + s3.accessKey(), "--parley.s3.secret.key=" + s3.secretKey(),
                // the scheduled retention run stays out of the way; tests call runOnce()
                "--parley.recording.retention.initial.delay=1h"));
        extra.forEach((k, v) -> args.add("--" + k + "=" + v));
        ApplicationContext ctx = null;
        for (int attempt = 1; ctx == null; attempt++) {
            try {
                ctx = Application.start(cfg, args.toArray(String[]::new));
            } catch (RuntimeException e) {
                if (attempt >= 3) {
                    throw e; // a starved machine can miss the etcd lease grant at startup; see ControllerHarness
                }
                Thread.sleep(1000);
            }
        }
        h.controllers.add(ctx);
        h.configs.add(cfg);
        return ctx;
    }

    /** Closes in order, skipping nulls (a failed {@code @BeforeAll}). */
    public static void closeAll(AutoCloseable... all) {
        for (AutoCloseable c : all) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    System.out.println("cleanup: " + e);
                }
            }
        }
    }

    public static S3Client client(S3Proxy s3) {
        return S3Client.builder().endpointOverride(s3.endpointUri()).region(Region.of(s3.region()))
                .httpClient(UrlConnectionHttpClient.create())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(s3.accessKey(),
                        s3.secretKey())))
                .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(true).build())
                // s3proxy rejects the SDK's aws-chunked checksum trailers (as in RecordingStorage)
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED).build();
    }

    public static void put(S3Client s3, String bucket, String key, byte[] body) {
        s3.putObject(p -> p.bucket(bucket).key(key), RequestBody.fromBytes(body));
    }

    public static List<String> keys(S3Client s3, String bucket, String prefix) {
        return s3.listObjectsV2Paginator(l -> l.bucket(bucket).prefix(prefix)).contents().stream()
                .map(o -> o.key()).toList();
    }

    /** Starts a recording in the scenario's meeting through the public API; returns the job id. */
    public static String startRecording(Scenario s, int controller) {
        var rec = s.command(controller, "{\"type\":\"start_recording\"}");
        assertThat(rec.status()).as(rec.raw()).isEqualTo(201);
        return rec.text("recording_job_id");
    }

    /** A state report as the recorder sends it (internal secret). */
    public static ControllerHarness.Res report(ControllerHarness h, int controller, String job, String body) {
        var r = h.call(controller, "POST", "/internal/v1/recordings/" + job + "/state", ControllerHarness.INTERNAL_SECRET,
                null, body);
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        return r;
    }
}
