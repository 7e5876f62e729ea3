package dev.parley.recorder.testing;

import dev.parley.testsupport.s3.S3Proxy;

/** Standalone s3proxy (test-support's fixture) for bench/recorder/run.sh: prints its endpoint, runs until killed. */
public final class S3ProxyMain {
    private S3ProxyMain() {
    }

    public static void main(String[] args) throws Exception {
        S3Proxy s3 = S3Proxy.start("bench");
        Runtime.getRuntime().addShutdownHook(new Thread(s3::close));
        System.out.println("S3_ENDPOINT=" + s3.endpoint());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
