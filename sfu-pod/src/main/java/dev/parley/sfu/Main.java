package dev.parley.sfu;

import dev.parley.media.netty.NettyDefaults;
import dev.parley.sfu.config.SfuConfig;

import java.util.concurrent.CountDownLatch;

/** Entry point of sfu-pod.jar: configuration from the environment (docs/configuration.md). */
public final class Main {
    private Main() {}

    public static void main(String[] args) throws Exception {
        NettyDefaults.apply();
        SfuServer server = new SfuServer(SfuConfig.fromEnv(System.getenv()));
        CountDownLatch done = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> { server.close(); done.countDown(); }));
        done.await();
    }
}
