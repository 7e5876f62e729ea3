package dev.parley.testsupport.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.parley.testsupport.net.FreePorts;
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
