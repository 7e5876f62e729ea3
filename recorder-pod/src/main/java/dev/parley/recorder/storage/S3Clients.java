package dev.parley.recorder.storage;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;

/** Builds the S3 client: JDK HTTP client, path-style (s3proxy, MinIO), no SDK-level retries (we own them). */
public final class S3Clients {
    private S3Clients() {
    }

    public static S3Client create(S3Settings s) {
        var builder = S3Client.builder()
                .httpClient(UrlConnectionHttpClient.builder()
                        .connectionTimeout(java.time.Duration.ofSeconds(2))
                        .socketTimeout(s.attemptTimeout())
                        .build())
                .region(Region.of(s.region()))
                .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(true).build())
                // Flexible checksums use aws-chunked trailers that S3-compatible servers often reject;
                // we send our own sha256 as metadata and verify it ourselves.
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .overrideConfiguration(o -> o
                        .retryStrategy(RetryMode.STANDARD)
                        .retryStrategy(b -> b.maxAttempts(1))
                        .apiCallAttemptTimeout(s.attemptTimeout())
                        .apiCallTimeout(s.attemptTimeout().multipliedBy(2)));
        if (s.endpoint() != null) {
            builder.endpointOverride(s.endpoint());
        }
        if (s.accessKey() != null && !s.accessKey().isBlank()) {
            builder.credentialsProvider(StaticCredentialsProvider.create(
                    AwsBasicCredentials.create(s.accessKey(), s.secretKey())));
        } else {
            builder.credentialsProvider(DefaultCredentialsProvider.builder().build());
        }
        return builder.build();
    }
}
