package dev.parley.recorder.testing;

import java.nio.file.Files;
import java.nio.file.Path;

/** Standalone s3proxy for bench/recorder/run.sh: prints its endpoint, runs until killed. */
public final class S3ProxyMain {
    private S3ProxyMain() {
    }

    public static void main(String[] args) throws Exception {
        S3ProxyServer s = new S3ProxyServer(Files.createTempDirectory("s3proxy"));
        System.out.println("S3_ENDPOINT=" + s.endpoint());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
