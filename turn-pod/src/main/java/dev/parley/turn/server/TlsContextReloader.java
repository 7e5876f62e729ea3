package dev.parley.turn.server;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;

/**
 * The TLS server context from PEM certificate and key files (a Kubernetes secret mount), rebuilt when either file
 * changes. New connections use the new context; open ones keep theirs. A broken new pair is logged and the old
 * context stays in use.
 */
final class TlsContextReloader {
    private static final Logger LOG = LoggerFactory.getLogger(TlsContextReloader.class);
    private final Path cert;
    private final Path key;
    private volatile SslContext current;
    private FileTime certTime;
    private FileTime keyTime;

    TlsContextReloader(Path cert, Path key) {
        this.cert = cert;
        this.key = key;
        try {
            load();
        } catch (IOException e) {
            throw new IllegalStateException("cannot load TLS certificate/key: " + e.getMessage(), e);
        }
    }

    private void load() throws IOException {
        FileTime ct = Files.getLastModifiedTime(cert);
        FileTime kt = Files.getLastModifiedTime(key);
        current = SslContextBuilder.forServer(cert.toFile(), key.toFile()).protocols("TLSv1.3", "TLSv1.2").build();
        certTime = ct;
        keyTime = kt;
    }

    SslContext current() {
        return current;
    }

    synchronized void reloadIfChanged() {
        try {
            if (!Files.getLastModifiedTime(cert).equals(certTime) || !Files.getLastModifiedTime(key).equals(keyTime)) {
                load();
                LOG.info("reloaded TLS certificate {}", cert);
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("TLS certificate reload failed, keeping the previous one: {}", e.toString());
        }
    }
}
