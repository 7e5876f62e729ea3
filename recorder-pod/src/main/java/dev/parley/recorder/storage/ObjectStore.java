package dev.parley.recorder.storage;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The recorder's narrow view of S3: objects carry their sha256 as user metadata ({@code x-amz-meta-sha256}),
 * small JSON documents are written with conditional requests.
 */
public final class ObjectStore implements AutoCloseable {
    public static final String SHA256_META = "sha256";

    private final S3Client s3;
    private final String bucket;

    public ObjectStore(S3Client s3, String bucket) {
        this.s3 = s3;
        this.bucket = bucket;
    }

    public String bucket() {
        return bucket;
    }

    public void createBucketIfMissing() {
        try {
            s3.headBucket(b -> b.bucket(bucket));
        } catch (S3Exception e) {
            if (e.statusCode() != 404) {
                throw e;
            }
            s3.createBucket(b -> b.bucket(bucket));
        }
    }

    /** Uploads a file under {@code key}; the sha256 travels as metadata so a HEAD can confirm the object. */
    public void putFile(String key, Path file, String sha256, String contentType) {
        s3.putObject(b -> b.bucket(bucket).key(key).contentType(contentType)
                .metadata(Map.of(SHA256_META, sha256)), RequestBody.fromFile(file));
    }

    /** Stored object's sha256 metadata and size, if the object exists. */
    public Optional<StoredObject> head(String key) {
        try {
            HeadObjectResponse r = s3.headObject(b -> b.bucket(bucket).key(key));
            return Optional.of(new StoredObject(key, r.contentLength(), r.metadata().get(SHA256_META), r.eTag()));
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** Downloads {@code key} to {@code target} and returns the sha256 of the bytes actually received. */
    public String download(String key, Path target) throws IOException {
        Path tmp = target.resolveSibling(target.getFileName() + ".part");
        try (InputStream in = s3.getObject(b -> b.bucket(bucket).key(key))) {
            Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
        }
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return Sha256.of(target);
    }

    /** A small document and its ETag, or empty if it doesn't exist. */
    public Optional<Document> getDocument(String key) {
        try {
            ResponseBytes<GetObjectResponse> r = s3.getObjectAsBytes(b -> b.bucket(bucket).key(key));
            return Optional.of(new Document(r.asByteArray(), r.response().eTag()));
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        }
    }

    /**
     * Writes a small document only if its current ETag is {@code ifMatch} (or, with {@code ifMatch == null},
     * only if it doesn't exist yet). Returns the new ETag; throws {@link S3Exception} 412 when the condition
     * fails.
     */
    public String putDocumentConditionally(String key, byte[] body, String ifMatch) {
        return s3.putObject(b -> {
            b.bucket(bucket).key(key).contentType("application/json").metadata(Map.of(SHA256_META, Sha256.of(body)));
            if (ifMatch == null) {
                b.ifNoneMatch("*");
            } else {
                b.ifMatch(ifMatch);
            }
        }, RequestBody.fromBytes(body)).eTag();
    }

    public void putBytes(String key, byte[] body, String contentType) {
        s3.putObject(b -> b.bucket(bucket).key(key).contentType(contentType)
                .metadata(Map.of(SHA256_META, Sha256.of(body))), RequestBody.fromBytes(body));
    }

    public List<StoredObject> list(String prefix) {
        List<StoredObject> out = new ArrayList<>();
        for (S3Object o : s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents()) {
            out.add(new StoredObject(o.key(), o.size(), null, o.eTag()));
        }
        return out;
    }

    public S3Client client() {
        return s3;
    }

    @Override
    public void close() {
        s3.close();
    }

    public record StoredObject(String key, long size, String sha256, String etag) {
    }

    public record Document(byte[] body, String etag) {
    }
}
