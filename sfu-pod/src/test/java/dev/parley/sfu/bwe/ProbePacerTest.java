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

    @Test
    void aGrowingEstimateWithoutProbeResultsDoesNotKeepRequestingProbes() {
        // the SFU never sends the clusters (or their feedback is lost): estimates rise from AIMD alone
        SendSideBandwidthEstimator bwe = new SendSideBandwidthEstimator(BweConfig.defaults().withStartBitrate(2_000_000));
        bwe.setDesiredBitrate(3_200_000);
        int requests = 0;
        int seq = 0;
        for (long t = 0; t < 20_000_000; t += 50_000) {
            for (int p = 0; p < 13; p++) {
                bwe.onPacketSent(seq++ & 0xFFFF, t + p * 3_800, 1200, -1);
            }
            bwe.onFeedbackStart(t + 50_000);
            for (int p = 13; p > 0; p--) {
                bwe.onPacketFeedback((seq - p) & 0xFFFF, true, t + (13 - p) * 3_800 + 20_000);
            }
            bwe.onFeedbackEnd(t + 50_000);
            bwe.onTick(t + 50_000);
            while (bwe.pollProbeCluster() != null) {
                requests++;
            }
        }
        // 2 initial clusters, then at most one deficient probe every 3–6 s
        assertThat(requests).isBetween(2, 2 + 7);
    }
}
