package dev.parley.sfu.bwe;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ProbePacerTest {

    @Test
    void runsTheInitialClustersAtTheirRateAndTagsEveryPacketMeanwhile() {
        SendSideBandwidthEstimator bwe = new SendSideBandwidthEstimator(BweConfig.defaults());
        ProbePacer pacer = new ProbePacer(bwe);
        int seq = 0;
        pacer.onPacketSent(seq++, 0, 1000); // first media packet: the estimator requests 900k and 1.8M clusters
        assertThat(pacer.probing()).isFalse();

        assertThat(pacer.fillerBytesDue(0)).as("nothing due at the very start").isZero();
        assertThat(pacer.probing()).isTrue();
        ProbeKind kind = pacer.fillerKind();
        assertThat(kind).isEqualTo(ProbeKind.PADDING);
        // 900 kbps for 20 ms = 2250 bytes; half of it is due after 10 ms
        assertThat(pacer.fillerBytesDue(10_000)).isEqualTo(1125);
        int size = pacer.fillerPacketSize();
        assertThat(size).isEqualTo(450); // 2250 bytes over 5 packets
        long t = 0;
        int sent = 0;
        long firstDoneAt = -1;
        int firstBytes = -1;
        while (t <= 100_000) {
            int due = pacer.fillerBytesDue(t);
            while (due > 0) {
                pacer.onPacketSent(seq++, t, size);
                sent += size;
                if (!pacer.probing() && firstDoneAt < 0) {
                    firstDoneAt = t;
                    firstBytes = sent;
                }
                due = pacer.fillerBytesDue(t);
            }
            t += 1_000;
        }
        assertThat(firstBytes).as("first cluster: 2250 bytes").isBetween(2250, 2250 + size);
        // whole packets go out as soon as any byte is due, so it ends up to one packet early
        assertThat(firstDoneAt).as("spread over about the cluster's 20 ms").isBetween(15_000L, 21_000L);
        // the second cluster (1.8 Mbps × 20 ms = 4500 bytes) follows right after, then nothing more
        assertThat(sent).isBetween(2250 + 4500, 2250 + 4500 + 2 * 900);
        assertThat(pacer.probing()).isFalse();
    }

    @Test
    void idleWithoutClusters() {
        SendSideBandwidthEstimator bwe = new SendSideBandwidthEstimator(BweConfig.defaults().withProbing(false));
        ProbePacer pacer = new ProbePacer(bwe);
        pacer.onPacketSent(0, 0, 1000);
        assertThat(pacer.fillerBytesDue(1_000_000)).isZero();
        assertThat(pacer.probing()).isFalse();
    }
}
