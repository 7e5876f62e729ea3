package dev.parley.controller.recording;

import io.micronaut.context.annotation.Value;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;
import software.amazon.awssdk.services.s3.presigner.model.PresignedGetObjectRequest;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The recordings bucket as the controller sees it: presigned download links for hosts and deletes for the
 * retention job. The recorder writes the objects ({@code {job}/...}); the controller never reads media. Configured
 * with the recorder's variables ({@code PARLEY_S3_ENDPOINT}, {@code PARLEY_S3_BUCKET}, {@code PARLEY_S3_REGION},
 * {@code PARLEY_S3_ACCESS_KEY}, {@code PARLEY_S3_SECRET_KEY}) plus {@code PARLEY_S3_PUBLIC_ENDPOINT} (the address
 * browsers reach, if it differs) and {@code PARLEY_RECORDING_DOWNLOAD_TTL_SECONDS}; without a bucket there are no
 * links and no deletes.
 */
@Singleton
public class RecordingStorage {
    private static final Logger LOG = LoggerFactory.getLogger(RecordingStorage.class);
    /** SigV4 presigned URLs are valid for at most 7 days. */
    static final long MAX_TTL_SECONDS = 7 * 24 * 3600;

    private final String bucket;
    private final Duration linkTtl;
    private final S3Client s3;
    private final S3Presigner presigner;

    /** A presigned GET and when it stops working. */
    public record Link(String url, Instant expiresAt) {
        @Override
        public String toString() {
            return "Link[expiresAt=" + expiresAt + "]"; // the URL is a bearer credential: never logged
        }
    }

    public RecordingStorage(@Value("${parley.s3.endpoint:}") String endpoint,
                            @Value("${parley.s3.public.endpoint:}") String publicEndpoint,
                            @Value("${parley.s3.bucket:}") String bucket,
                            @Value("${parley.s3.region:us-east-1}") String region,
                            @Value("${parley.s3.access.key:}") String accessKey,
                            @Value("${parley.s3.secret.key:}") String secretKey,
                            @Value("${parley.recording.download.ttl.seconds:900}") long linkTtlSeconds) {
        if (linkTtlSeconds < 1 || linkTtlSeconds > MAX_TTL_SECONDS) {
            throw new IllegalArgumentException("PARLEY_RECORDING_DOWNLOAD_TTL_SECONDS must be 1.." + MAX_TTL_SECONDS);
        }
        this.linkTtl = Duration.ofSeconds(linkTtlSeconds);
        if (bucket.isBlank()) {
            this.bucket = null;
            this.s3 = null;
            this.presigner = null;
            LOG.info("recording storage not configured (PARLEY_S3_BUCKET unset): no download links, no retention deletes");
            return;
        }
        this.bucket = bucket;
        AwsCredentialsProvider creds = accessKey.isBlank() ? DefaultCredentialsProvider.builder().build()
                : StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey));
        S3Configuration pathStyle = S3Configuration.builder().pathStyleAccessEnabled(true).build();
        var client = S3Client.builder()
                .httpClient(UrlConnectionHttpClient.builder().connectionTimeout(Duration.ofSeconds(2))
                        .socketTimeout(Duration.ofSeconds(10)).build())
                .region(Region.of(region)).credentialsProvider(creds).serviceConfiguration(pathStyle)
                // S3-compatible servers often reject the SDK's aws-chunked checksum trailers
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
        var signer = S3Presigner.builder().region(Region.of(region)).credentialsProvider(creds)
                .serviceConfiguration(pathStyle);
        if (!endpoint.isBlank()) {
            client.endpointOverride(URI.create(endpoint));
        }
        String linkEndpoint = publicEndpoint.isBlank() ? endpoint : publicEndpoint;
        if (!linkEndpoint.isBlank()) {
            signer.endpointOverride(URI.create(linkEndpoint));
        }
        this.s3 = client.build();
        this.presigner = signer.build();
        LOG.info("recording storage: bucket {} at {}, download links valid {} s", bucket,
                endpoint.isBlank() ? "AWS" : endpoint, linkTtlSeconds);
    }

    public boolean configured() {
        return bucket != null;
    }

    public Duration linkTtl() {
        return linkTtl;
    }

    /** A time-limited GET link for one object (signed locally, no call to the store). */
    public Optional<Link> downloadLink(String key) {
        if (!configured() || key == null) {
            return Optional.empty();
        }
        PresignedGetObjectRequest p = presigner.presignGetObject(r -> r.signatureDuration(linkTtl)
                .getObjectRequest(g -> g.bucket(bucket).key(key)));
        return Optional.of(new Link(p.url().toString(), p.expiration()));
    }

    /** What one prefix delete removed. */
    public record Deleted(int objects, long bytes) {
    }

    /**
     * Deletes every object under {@code prefix} (all pages). Idempotent: a second call finds nothing. One
     * DeleteObject per key rather than a batch DeleteObjects, which needs a Content-MD5 that S3-compatible
     * servers and the SDK's checksum defaults disagree on; a recording has tens to hundreds of objects.
     */
    public Deleted deletePrefix(String prefix) {
        if (!configured()) {
            throw new IllegalStateException("recording storage not configured");
        }
        int objects = 0;
        long bytes = 0;
        String token = null;
        do {
            ListObjectsV2Request.Builder req = ListObjectsV2Request.builder().bucket(bucket).prefix(prefix);
            if (token != null) {
                req.continuationToken(token);
            }
            ListObjectsV2Response page = s3.listObjectsV2(req.build());
            for (S3Object o : page.contents()) {
                s3.deleteObject(d -> d.bucket(bucket).key(o.key()));
                objects++;
                bytes += o.size() == null ? 0 : o.size();
            }
            token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
        } while (token != null);
        return new Deleted(objects, bytes);
    }

    @PreDestroy
    void close() {
        if (s3 != null) {
            s3.close();
            presigner.close();
        }
    }
}
