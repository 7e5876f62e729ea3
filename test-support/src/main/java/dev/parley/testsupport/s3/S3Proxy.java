package dev.parley.testsupport.s3;

import dev.parley.testsupport.fs.Directories;
import dev.parley.testsupport.net.FreePorts;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A real S3 API (s3proxy) in a child JVM on a free 127.0.0.1 port, with fixed test credentials and one empty
 * bucket. Objects live in memory ({@link Backend#TRANSIENT}, default) or in files
 * ({@link Backend#FILESYSTEM}, jclouds "filesystem-nio2", which survive {@link #stop()} / {@link #restart()} -
 * handy to simulate an object-storage outage). jclouds' older "filesystem" provider is not used: it lists
 * directory markers such as {@code meeting-1/} as objects, which real S3 never does.
 *
 * <p>Why a child JVM: s3proxy brings its own Jetty 11, Guava, Jackson and logback, which clash with the
 * Micronaut/Netty classpath of the modules under test. Its self-contained jar runs in isolation instead.
 * The jar is found via {@code -Dparley.s3proxy.jar}, else the path Maven recorded when building
 * test-support ({@code parley-test-support.properties}), else the local Maven repository.
 */
public final class S3Proxy implements AutoCloseable {

    public static final String ACCESS_KEY = "parley-test-access";
    public static final String SECRET_KEY = "parley-test-secret";
    public static final String DEFAULT_BUCKET = "parley-test";
    public static final String REGION = "us-east-1";

    /** Every s3proxy this JVM started: killed in a shutdown hook as a last resort. */
    private static final java.util.Set<Process> LIVE = java.util.concurrent.ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly), "s3proxy-reaper"));
    }

    private final Path jar;
    private final int port;
    private final String bucket;
    private final Path root;
    private final Backend backend;
    /** s3proxy's temporary name for an object being written: {@code <key>-<random uuid>}. */
    private static final Pattern UNFINISHED_WRITE =
            Pattern.compile(".*-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    private Process process;

    private S3Proxy(Path jar, int port, String bucket, Path root, Backend backend) {
        this.jar = jar;
        this.port = port;
        this.bucket = bucket;
        this.root = root;
        this.backend = backend;
    }

    /** Where objects live. */
    public enum Backend {
        /** In the child JVM's memory: fastest, lost when s3proxy stops. */
        TRANSIENT,
        /** Files under a temp directory (jclouds "filesystem-nio2"): survive {@link #stop()}/{@link #restart()}. */
        FILESYSTEM
    }

    public static S3Proxy start() {
        return start(DEFAULT_BUCKET);
    }

    /** Starts s3proxy (in-memory backend) with an empty bucket named {@code bucket}; blocks until it answers. */
    public static S3Proxy start(String bucket) {
        return start(bucket, Backend.TRANSIENT);
    }

    /** Starts s3proxy with an empty bucket named {@code bucket}; blocks until it answers HTTP. */
    public static S3Proxy start(String bucket, Backend backend) {
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            Path root;
            try {
                root = Files.createTempDirectory("parley-s3-");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            S3Proxy proxy = new S3Proxy(jar(), FreePorts.tcp(), bucket, root, backend);
            try {
                proxy.restart();
                proxy.createBucket(bucket);
                return proxy;
            } catch (IllegalStateException e) {
                String log = proxy.logTail();
                proxy.close();
                if (!log.contains("Address already in use")) {
                    throw e;
                }
                last = e; // lost the race for the "free" port: try another
            }
        }
        throw last;
    }

    /**
     * Starts the process again on the same port, e.g. after {@link #stop()} to end a simulated outage. With
     * {@link Backend#FILESYSTEM} earlier objects are still there; with {@link Backend#TRANSIENT} the store
     * starts empty (call {@link #createBucket(String)} again).
     */
    public synchronized void restart() {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("s3proxy is already running");
        }
        if (backend == Backend.FILESYSTEM) {
            removeUnfinishedWrites(dataDirectory());
        }
        process = launch();
        awaitReady(Duration.ofSeconds(60));
    }

    /**
     * A PUT in flight when {@link #stop()} killed the process leaves its temporary file ({@code <key>-<uuid>},
     * written before the atomic rename and lacking the ETag attribute); s3proxy then fails every listing of that
     * bucket with 500. Real S3 PUTs are atomic (an interrupted one leaves nothing), so the restarted proxy must
     * not see these files either.
     */
    private static void removeUnfinishedWrites(Path data) {
        if (!Files.isDirectory(data)) {
            return;
        }
        try (var files = Files.walk(data)) {
            for (Path f : files.filter(Files::isRegularFile)
                    .filter(f -> UNFINISHED_WRITE.matcher(f.getFileName().toString()).matches()).toList()) {
                Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Stops the process (SIGTERM): the port refuses connections until {@link #restart()}. */
    public synchronized void stop() {
        Process p = process;
        if (p == null) {
            return;
        }
        p.destroy();
        try {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
        }
        process = null;
    }

    /** Where the filesystem backend keeps buckets (one directory each); for tests of this class. */
    Path dataDirectory() {
        return root.resolve("data");
    }

    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    private Process launch() {
        Properties props = new Properties();
        props.setProperty("s3proxy.endpoint", "http://127.0.0.1:" + port);
        props.setProperty("s3proxy.authorization", "aws-v2-or-v4");
        props.setProperty("s3proxy.identity", ACCESS_KEY);
        props.setProperty("s3proxy.credential", SECRET_KEY);
        if (backend == Backend.FILESYSTEM) {
            props.setProperty("jclouds.provider", "filesystem-nio2");
            props.setProperty("jclouds.filesystem.basedir", root.resolve("data").toString());
        } else {
            props.setProperty("jclouds.provider", "transient");
        }
        props.setProperty("jclouds.identity", "unused");
        props.setProperty("jclouds.credential", "unused");
        Path conf = root.resolve("s3proxy.conf");
        try {
            Files.createDirectories(root.resolve("data"));
            try (var out = Files.newOutputStream(conf)) {
                props.store(out, "parley test s3proxy");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String java = ProcessHandle.current().info().command().orElse("java");
        ProcessBuilder pb = new ProcessBuilder(List.of(java, "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-jar", jar.toString(), "--properties", conf.toString()))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(root.resolve("s3proxy.log").toFile()));
        pb.environment().put("LOG_LEVEL", "warn");
        try {
            Process p = pb.start();
            LIVE.add(p);
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start s3proxy", e);
        }
    }

    private void awaitReady(Duration timeout) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (process == null || !process.isAlive()) {
                throw new IllegalStateException("s3proxy exited during start; log tail:\n" + logTail());
            }
            try {
                // unauthenticated request: any HTTP answer (403) means Jetty is serving
                HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create(endpoint() + "/")).GET()
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding());
                if (r.statusCode() > 0) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted waiting for s3proxy", e);
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted waiting for s3proxy", e);
            }
        }
        throw new IllegalStateException("s3proxy not ready after " + timeout + "; log tail:\n" + logTail());
    }

    /**
     * Creates a bucket with a plain signed request (AWS signature v2, which s3proxy accepts next to v4), so the
     * fixture needs no S3 SDK on its own classpath.
     */
    public void createBucket(String name) {
        String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC));
        String stringToSign = "PUT\n\n\n\nx-amz-date:" + date + "\n/" + name;
        String signature;
        try {
            Mac mac = Mac.getInstance("HmacSHA1");
            mac.init(new SecretKeySpec(SECRET_KEY.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
            signature = Base64.getEncoder().encodeToString(
                    mac.doFinal(stringToSign.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA1 unavailable", e);
        }
        try {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(endpoint() + "/" + name))
                    .header("x-amz-date", date)
                    .header("Authorization", "AWS " + ACCESS_KEY + ":" + signature)
                    .timeout(Duration.ofSeconds(10))
                    .PUT(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            // 409 BucketAlreadyOwnedByYou: the bucket survived a restart of a filesystem-backed proxy
            if (r.statusCode() != 200 && r.statusCode() != 409) {
                throw new IllegalStateException("s3proxy refused to create bucket " + name + ": HTTP "
                        + r.statusCode() + " " + r.body());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create bucket " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted creating bucket", e);
        }
    }

    /** {@code http://127.0.0.1:PORT}; use path-style addressing. */
    public String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    public URI endpointUri() {
        return URI.create(endpoint());
    }

    public int port() {
        return port;
    }

    public String bucket() {
        return bucket;
    }

    public String accessKey() {
        return ACCESS_KEY;
    }

    public String secretKey() {
        return SECRET_KEY;
    }

    public String region() {
        return REGION;
    }

    /** Stops the process and deletes its files. */
    @Override
    public synchronized void close() {
        Process p = process;
        stop();
        if (p != null) {
            LIVE.remove(p);
        }
        Directories.deleteTree(root);
    }

    String logTail() {
        try {
            List<String> lines = Files.readAllLines(root.resolve("s3proxy.log"));
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    /** Locates the s3proxy jar-with-dependencies. */
    static Path jar() {
        String configured = System.getProperty("parley.s3proxy.jar");
        if (configured != null && !configured.isBlank()) {
            return existing(Path.of(configured));
        }
        String version = "2.6.0";
        try (InputStream in = S3Proxy.class.getResourceAsStream("/parley-test-support.properties")) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                String recorded = p.getProperty("s3proxy.jar", "");
                version = p.getProperty("s3proxy.version", version);
                if (!recorded.isBlank() && !recorded.startsWith("${") && Files.isRegularFile(Path.of(recorded))) {
                    return Path.of(recorded);
                }
            }
        } catch (IOException e) {
            // fall through to the local repository
        }
        String repo = System.getProperty("maven.repo.local",
                System.getProperty("user.home") + "/.m2/repository");
        return existing(Path.of(repo, "org/gaul/s3proxy", version,
                "s3proxy-" + version + "-jar-with-dependencies.jar"));
    }

    private static Path existing(Path p) {
        if (!Files.isRegularFile(p)) {
            throw new IllegalStateException("s3proxy jar not found at " + p + ": build test-support with Maven "
                    + "(it resolves org.gaul:s3proxy:jar-with-dependencies) or set -Dparley.s3proxy.jar");
        }
        return p;
    }
}
