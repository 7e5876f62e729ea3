package dev.parley.testsupport.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

class S3ProxyExtensionTest {

    @RegisterExtension
    static S3ProxyExtension s3 = new S3ProxyExtension("recordings");

    @Test
    void putThenGetReturnsSameBytes() throws Exception {
        byte[] data = new byte[3 * 1024 * 1024 + 17];
        new Random(7).nextBytes(data);
        try (S3Client client = client(s3.secretKey())) {
            client.putObject(b -> b.bucket(s3.bucket()).key("meeting-1/rec-1.webm"), RequestBody.fromBytes(data));
            byte[] back = client.getObjectAsBytes(b -> b.bucket(s3.bucket()).key("meeting-1/rec-1.webm")).asByteArray();
            assertThat(sha256(back)).isEqualTo(sha256(data));
            assertThat(client.listObjectsV2(b -> b.bucket(s3.bucket())).contents())
                    .extracting(o -> o.key()).containsExactly("meeting-1/rec-1.webm");
        }
    }

    @Test
    void missingKeyIs404() {
        try (S3Client client = client(s3.secretKey())) {
            assertThatThrownBy(() -> client.headObject(b -> b.bucket(s3.bucket()).key("nope")))
                    .isInstanceOf(S3Exception.class)
                    .satisfies(e -> assertThat(((S3Exception) e).statusCode()).isEqualTo(404));
        }
    }

    @Test
    void wrongSecretIsRejected() {
        try (S3Client client = client("not-the-secret")) {
            assertThatThrownBy(() -> client.listObjectsV2(b -> b.bucket(s3.bucket())))
                    .isInstanceOf(S3Exception.class)
                    .satisfies(e -> assertThat(((S3Exception) e).statusCode()).isEqualTo(403));
        }
    }

    private static S3Client client(String secret) {
        return S3Client.builder()
                .endpointOverride(s3.endpointUri())
                .forcePathStyle(true)
                // s3proxy 2.6.0 rejects the SDK's default aws-chunked trailing checksums (SDK >= 2.30)
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .region(Region.of(s3.region()))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(s3.accessKey(), secret)))
                .build();
    }

    private static String sha256(byte[] data) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    }
}
