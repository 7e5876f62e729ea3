package dev.parley.testsupport.s3;

import java.net.URI;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * s3proxy for one test class:
 * <pre>{@code
 * @RegisterExtension
 * static S3ProxyExtension s3 = new S3ProxyExtension();
 * S3Client client = S3Client.builder()
 *         .endpointOverride(s3.endpointUri()).forcePathStyle(true).region(Region.of(s3.region()))
 *         .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(s3.accessKey(), s3.secretKey())))
 *         .build();
 * }</pre>
 */
public class S3ProxyExtension implements BeforeAllCallback, AfterAllCallback {

    private final String bucket;
    private final S3Proxy.Backend backend;
    private volatile S3Proxy proxy;

    public S3ProxyExtension() {
        this(S3Proxy.DEFAULT_BUCKET);
    }

    public S3ProxyExtension(String bucket) {
        this(bucket, S3Proxy.Backend.TRANSIENT);
    }

    /** With {@link S3Proxy.Backend#FILESYSTEM}, objects survive {@code proxy().stop()} / {@code proxy().restart()}. */
    public S3ProxyExtension(String bucket, S3Proxy.Backend backend) {
        this.bucket = bucket;
        this.backend = backend;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        proxy = S3Proxy.start(bucket, backend);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        S3Proxy p = proxy;
        proxy = null;
        if (p != null) {
            p.close();
        }
    }

    public S3Proxy proxy() {
        S3Proxy p = proxy;
        if (p == null) {
            throw new IllegalStateException("s3proxy is not running: register S3ProxyExtension on a static field");
        }
        return p;
    }

    public String endpoint() {
        return proxy().endpoint();
    }

    public URI endpointUri() {
        return proxy().endpointUri();
    }

    public String bucket() {
        return proxy().bucket();
    }

    public String accessKey() {
        return proxy().accessKey();
    }

    public String secretKey() {
        return proxy().secretKey();
    }

    public String region() {
        return proxy().region();
    }
}
