package dev.parley.sfu.quality;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LinkEmulatorTest {

    @Test
    void deliversAtCapacityWithPropagationDelay() {
        LinkEmulator link = new LinkEmulator(1_000_000, 10_000, 1_000_000, 0, 1);
        // 1250 bytes at 1 Mbps take 10 ms on the wire
        assertThat(link.send(0, 1250)).isEqualTo(20_000);
        assertThat(link.send(0, 1250)).as("queued behind the first").isEqualTo(30_000);
        assertThat(link.queueDelayMicros(0)).isEqualTo(20_000);
        assertThat(link.send(100_000, 1250)).as("queue drained").isEqualTo(120_000);
    }

    @Test
    void overloadFillsTheQueueThenDropsAndThroughputEqualsCapacity() {
        LinkEmulator link = new LinkEmulator(300_000, 20_000, 200_000, 0, 1);
        long lastArrival = 0;
        int delivered = 0;
        for (long t = 0; t < 10_000_000; t += 10_000) { // 1200 bytes every 10 ms = 960 kbps offered
            long a = link.send(t, 1200);
            if (a != LinkEmulator.DROPPED) {
                delivered++;
                lastArrival = a;
            }
        }
        double throughput = delivered * 1200 * 8 / (lastArrival / 1e6);
        assertThat(throughput).isBetween(280_000.0, 310_000.0);
        assertThat(link.queueDrops()).isGreaterThan(500);
        assertThat(link.queueDelayMicros(10_000_000)).isLessThanOrEqualTo(200_000 + 40_000);
    }

    @Test
    void randomLossIsDeterministicPerSeed() {
        LinkEmulator a = new LinkEmulator(0, 0, 0, 0.1, 99);
        LinkEmulator b = new LinkEmulator(0, 0, 0, 0.1, 99);
        StringBuilder pa = new StringBuilder();
        StringBuilder pb = new StringBuilder();
        for (int i = 0; i < 10_000; i++) {
            pa.append(a.send(i, 100) == LinkEmulator.DROPPED ? 'x' : '.');
            pb.append(b.send(i, 100) == LinkEmulator.DROPPED ? 'x' : '.');
        }
        assertThat(pa.toString()).isEqualTo(pb.toString());
        assertThat(a.randomLosses()).isBetween(900L, 1100L);
    }

    @Test
    void jitterDelaysWithinItsBoundAndKeepsOrder() {
        LinkEmulator link = new LinkEmulator(0, 10_000, 0, 0, 3);
        link.setJitterMicros(15_000);
        long prev = 0;
        long maxExtra = 0;
        for (long t = 0; t < 1_000_000; t += 1_000) {
            long a = link.send(t, 100);
            assertThat(a).isGreaterThanOrEqualTo(prev);
            assertThat(a).isGreaterThanOrEqualTo(t + 10_000);
            maxExtra = Math.max(maxExtra, a - t - 10_000);
            prev = a;
        }
        assertThat(maxExtra).isBetween(10_000L, 15_000L);
    }

    @Test
    void rejectsNonsense() {
        assertThatThrownBy(() -> new LinkEmulator(1, 0, 0, 1.5, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LinkEmulator(1, -1, 0, 0, 1)).isInstanceOf(IllegalArgumentException.class);
    }
}
