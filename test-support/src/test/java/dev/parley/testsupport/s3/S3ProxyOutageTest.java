package dev.parley.testsupport.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.testsupport.net.FreePorts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/** Filesystem backend: objects survive a stop/start of s3proxy on the same port (simulated outage). */
class S3ProxyOutageTest {

    @RegisterExtension
    static S3ProxyExtension s3 = new S3ProxyExtension("segments", S3Proxy.Backend.FILESYSTEM);

    @Test
    void objectsSurviveAnOutageAndNestedKeysListWithoutDirectoryMarkers() {
        try (S3Client client = client()) {
            client.putObject(b -> b.bucket("segments").key("m-1/seg-0001.webm"), RequestBody.fromString("segment-1"));

            s3.proxy().stop();
            assertThat(FreePorts.isListening(s3.proxy().port())).isFalse();
            assertThatThrownBy(() -> client.headObject(b -> b.bucket("segments").key("m-1/seg-0001.webm")))
                    .isInstanceOf(SdkClientException.class);

            s3.proxy().restart();
            assertThat(client.getObjectAsBytes(b -> b.bucket("segments").key("m-1/seg-0001.webm")).asUtf8String())
                    .isEqualTo("segment-1");
            assertThat(client.listObjectsV2(b -> b.bucket("segments")).contents())
                    .extracting(o -> o.key()).containsExactly("m-1/seg-0001.webm");
        }
    }

    @Test
    void aWriteCutOffByTheOutageLeavesNothingBehind() throws Exception {
        try (S3Client before = client()) {
            before.putObject(b -> b.bucket("segments").key("m-2/manifest.json"), RequestBody.fromString("v1"));
        }
        s3.proxy().stop();
        // What a PUT in flight at SIGTERM leaves: s3proxy's temporary file, never renamed, without its ETag.
        Path dir = s3.proxy().dataDirectory().resolve("segments").resolve("m-2");
        Files.writeString(dir.resolve("manifest.json-" + UUID.randomUUID()), "v2-half-writ");

        s3.proxy().restart();
        try (S3Client after = client()) {
            assertThat(after.listObjectsV2(b -> b.bucket("segments").prefix("m-2/")).contents())
                    .extracting(o -> o.key()).containsExactly("m-2/manifest.json");
            assertThat(after.getObjectAsBytes(b -> b.bucket("segments").key("m-2/manifest.json")).asUtf8String())
                    .isEqualTo("v1");
        }
    }

    private static S3Client client() {
        return S3Client.builder()
                .endpointOverride(s3.endpointUri())
                .forcePathStyle(true)
                .region(Region.of(s3.region()))
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                // fail fast while s3proxy is down instead of retrying with back-off
                .overrideConfiguration(c -> c.retryStrategy(b -> b.maxAttempts(1)).apiCallTimeout(java.time.Duration.ofSeconds(10)))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(s3.accessKey(), s3.secretKey())))
                .build();
    }
}
