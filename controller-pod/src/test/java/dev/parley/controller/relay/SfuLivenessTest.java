package dev.parley.controller.relay;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The relay driver's health probe against a real HTTP server on loopback: a live SFU that stalls for about two
 * seconds (a starved JVM on a loaded machine) is not declared down — the verdict moves its participants and cuts its
 * relays — while one that stops answering for good is, within a few seconds. Fails without the silence rule: two
 * 800 ms timeouts in a row were enough.
 */
@Timeout(30)
class SfuLivenessTest {
    /** Probes every 500 ms (the driver's round) for {@code ms}; returns the pods reported down. */
    private static List<String> probe(String url, long ms) throws InterruptedException {
        List<String> down = new CopyOnWriteArrayList<>();
        SfuLiveness l = new SfuLiveness(down::add);
        long end = System.currentTimeMillis() + ms;
        while (System.currentTimeMillis() < end) {
            l.probe("sfu-x", url);
            Thread.sleep(500);
        }
        return down;
    }

    private static HttpServer server(java.util.function.IntSupplier stallMs) throws Exception {
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        s.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        s.createContext("/healthz", ex -> {
            try {
                Thread.sleep(stallMs.getAsInt());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        s.start();
        return s;
    }

    @Test
    void aLiveSfuStallingForTwoSecondsIsNotDown() throws Exception {
        long start = System.currentTimeMillis();
        HttpServer s = server(() -> System.currentTimeMillis() - start < 1_600 ? 1_500 : 0);
        try {
            List<String> down = probe("http://127.0.0.1:" + s.getAddress().getPort(), 5_000);
            assertThat(down).as("a stall shorter than the silence bound is no verdict").isEmpty();
        } finally {
            s.stop(0);
        }
    }

    @Test
    void anSfuThatStopsAnsweringIsDownWithinSeconds() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        HttpServer s = server(() -> calls.incrementAndGet() <= 1 ? 0 : 20_000);
        try {
            long t0 = System.currentTimeMillis();
            List<String> down = probe("http://127.0.0.1:" + s.getAddress().getPort(), 6_000);
            assertThat(down).as("silent for good: down").containsExactly("sfu-x");
            System.out.println("silent SFU reported down; probing ran " + (System.currentTimeMillis() - t0) + " ms");
        } finally {
            s.stop(0);
        }
    }

    @Test
    void aPodTakenForDownComesBackOnItsFirstAnswerAndIsReportedOnce() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean stalled = new java.util.concurrent.atomic.AtomicBoolean(true);
        HttpServer s = server(() -> stalled.get() ? 20_000 : 0);
        try {
            String url = "http://127.0.0.1:" + s.getAddress().getPort();
            List<String> down = new CopyOnWriteArrayList<>(), up = new CopyOnWriteArrayList<>();
            SfuLiveness l = new SfuLiveness(down::add, up::add);
            probeUntilDown(l, url, down);
            assertThat(down).containsExactly("sfu-x");
            assertThat(l.downPods()).containsExactly("sfu-x");
            stalled.set(false);
            probeWhileDown(l, url); // a probe sent during the stall may wait out its 3 s first
            assertThat(l.down("sfu-x")).as("its first answer brings it back").isFalse();
            assertThat(up).containsExactly("sfu-x");
            assertThat(l.downPods()).isEmpty();
        } finally {
            s.stop(0);
        }
    }

    /** A pod taken for down that then answers slowly (1.5 s, a loaded machine) still comes back: not cut off at 800 ms. */
    @Test
    void aPodTakenForDownThatAnswersSlowlyComesBack() throws Exception {
        java.util.concurrent.atomic.AtomicInteger stall = new java.util.concurrent.atomic.AtomicInteger(20_000);
        HttpServer s = server(stall::get);
        try {
            String url = "http://127.0.0.1:" + s.getAddress().getPort();
            List<String> down = new CopyOnWriteArrayList<>(), up = new CopyOnWriteArrayList<>();
            SfuLiveness l = new SfuLiveness(down::add, up::add);
            probeUntilDown(l, url, down);
            assertThat(down).containsExactly("sfu-x");
            stall.set(1_500);
            probeWhileDown(l, url);
            assertThat(up).as("a 1.5 s answer of a pod taken for down counts").containsExactly("sfu-x");
        } finally {
            s.stop(0);
        }
    }

    /** Probes every 500 ms until {@code down} reports the pod (at most 10 s). */
    private static void probeUntilDown(SfuLiveness l, String url, List<String> down) throws InterruptedException {
        long end = System.currentTimeMillis() + 10_000;
        while (down.isEmpty() && System.currentTimeMillis() < end) {
            l.probe("sfu-x", url);
            Thread.sleep(500);
        }
    }

    /** Probes every 100 ms while the pod is down (at most 8 s). */
    private static void probeWhileDown(SfuLiveness l, String url) throws InterruptedException {
        long end = System.currentTimeMillis() + 8_000;
        while (l.down("sfu-x") && System.currentTimeMillis() < end) {
            l.probe("sfu-x", url);
            Thread.sleep(100);
        }
    }
}
