package dev.parley.recorder.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.util.Properties;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;

/**
 * A real s3proxy (in-process, in-memory jclouds store) on a loopback port. Stop and start again on the same
 * port to simulate an object-storage outage (connections refused); objects survive the outage.
 * test-support's {@code dev.parley.testsupport.s3.S3Proxy} runs s3proxy in a child JVM with an in-memory store, so it
 * cannot be taken down and brought back with its objects: the outage tests need this in-process one.
 */
public final class S3ProxyServer implements AutoCloseable {
    public static final String ACCESS_KEY = "parley-test-access";
    public static final String SECRET_KEY = "parley-test-secret";

    private final Path dir;
    private final int port;
    private BlobStoreContext context;
    private S3Proxy proxy;

    public S3ProxyServer(Path dir) throws Exception {
        this.dir = dir;
        this.port = freePort();
        start();
    }

    public synchronized void start() throws Exception {
        if (proxy != null) {
            return;
        }
        if (context == null) {
            // in-memory store, kept across stop()/start() so objects survive a simulated outage
            Properties props = new Properties();
            props.setProperty("jclouds.filesystem.basedir", dir.toString());
            context = ContextBuilder.newBuilder("transient-nio2").credentials("identity", "credential")
                    .overrides(props).build(BlobStoreContext.class);
        }
        proxy = S3Proxy.builder()
                .blobStore(context.getBlobStore())
                .endpoint(URI.create("http://127.0.0.1:" + port))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
                .build();
        proxy.start();
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!"STARTED".equals(proxy.getState())) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("s3proxy did not start: " + proxy.getState());
            }
            Thread.sleep(20);
        }
    }

    /** Simulated outage: the port stops answering (connection refused) until {@link #start()}. */
    public synchronized void stop() throws Exception {
        if (proxy == null) {
            return;
        }
        proxy.stop();
        proxy = null;
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    public int port() {
        return port;
    }

    @Override
    public void close() throws Exception {
        stop();
        if (context != null) {
            context.close();
            context = null;
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
