package dev.parley.recorder.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.parley.testsupport.s3.S3Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the real s3proxy supports of the conditional writes the manifest relies on. */
class ObjectStoreIT {
    @TempDir
    static Path tmp;
    static S3Proxy s3proxy;
    static ObjectStore store;

    @BeforeAll
    static void start() throws Exception {
        s3proxy = S3Proxy.start("probe");
        store = new ObjectStore(S3Clients.create(new S3Settings(s3proxy.endpointUri(), "us-east-1", "probe",
                S3Proxy.ACCESS_KEY, S3Proxy.SECRET_KEY, Duration.ofSeconds(5))), "probe");
        store.createBucketIfMissing();
    }

    @AfterAll
    static void stop() throws Exception {
        store.close();
        s3proxy.close();
    }

    @Test
    void fileUploadCarriesSha256Metadata() throws Exception {
        Path f = tmp.resolve("seg");
        Files.write(f, "segment-bytes".getBytes(StandardCharsets.UTF_8));
        String sha = Sha256.of(f);
        store.putFile("job/1/cam/0", f, sha, "video/webm");
        var head = store.head("job/1/cam/0").orElseThrow();
        assertThat(head.sha256()).isEqualTo(sha);
        assertThat(head.size()).isEqualTo(13);
        assertThat(store.head("job/1/cam/1")).isEmpty();
        assertThat(store.download("job/1/cam/0", tmp.resolve("back"))).isEqualTo(sha);
    }

    /**
     * s3proxy 2.6.0 accepts If-Match / If-None-Match on PUT but does not enforce them (AWS S3 does since 2024).
     * This is why the manifest is fenced by generation-scoped objects instead (see ManifestStore and
     * docs/recording.md). If this test starts failing, s3proxy learned conditional writes: update the docs.
     */
    @Test
    void s3proxyIgnoresConditionalPuts() {
        String e1 = store.putDocumentConditionally("doc", "v1".getBytes(StandardCharsets.UTF_8), null);
        String e2 = store.putDocumentConditionally("doc", "v2".getBytes(StandardCharsets.UTF_8), e1);
        assertThat(e2).isNotEqualTo(e1);
        store.putDocumentConditionally("doc", "stale".getBytes(StandardCharsets.UTF_8), e1);
        assertThat(new String(store.getDocument("doc").orElseThrow().body(), StandardCharsets.UTF_8))
                .as("a PUT with a stale If-Match was applied").isEqualTo("stale");
    }
}
