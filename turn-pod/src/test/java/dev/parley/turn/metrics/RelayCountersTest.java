package dev.parley.turn.metrics;

import io.netty.util.concurrent.DefaultThreadFactory;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Per-thread relay counters: each thread counts into its own cell, totals and the scrape text sum all of them. */
class RelayCountersTest {
    @Test
    void totalsSumEveryThreadIncludingEndedOnes() throws Exception {
        TurnMetrics metrics = new TurnMetrics();
        int perThread = 10_000;
        CountDownLatch done = new CountDownLatch(2);
        DefaultThreadFactory threads = new DefaultThreadFactory("relay-counters-test"); // FastThreadLocalThreads, like event loops
        for (int t = 0; t < 2; t++) {
            threads.newThread(() -> {
                RelayCounters c = metrics.relayCounters();
                for (int i = 0; i < perThread; i++) {
                    c.clientToPeer(100);
                    c.peerToClient(60);
                }
                done.countDown();
            }).start();
        }
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        metrics.relayCounters().peerToClient(7); // a plain thread (the test's) works too

        assertThat(metrics.packetsClientToPeer.sum()).isEqualTo(2L * perThread);
        assertThat(metrics.bytesClientToPeer.sum()).isEqualTo(2L * perThread * 100);
        assertThat(metrics.packetsPeerToClient.sum()).isEqualTo(2L * perThread + 1);
        assertThat(metrics.bytesPeerToClient.sum()).isEqualTo(2L * perThread * 60 + 7);
        assertThat(metrics.prometheusText())
                .contains("parley_turn_relayed_packets_total{direction=\"client_to_peer\"} 20000\n")
                .contains("parley_turn_relayed_bytes_total{direction=\"peer_to_client\"} 1200007\n");
    }
}
