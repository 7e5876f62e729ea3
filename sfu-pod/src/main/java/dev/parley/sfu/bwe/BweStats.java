package dev.parley.sfu.bwe;

/**
 * A snapshot for metrics and per-participant stats; taken at low rate, so it may allocate.
 *
 * @param estimateBps   the final estimate the allocator uses: min(delay-based, loss-based)
 * @param delayBasedBps the AIMD controller's estimate (or the REMB value in REMB mode)
 * @param lossBasedBps  the loss controller's cap (the configured max while no loss was seen)
 * @param ackedBps      bitrate the receiver acknowledged over the last 500 ms, -1 if unknown
 * @param sendBps       media bitrate we sent over the last 500 ms, -1 if unknown
 * @param lossFraction  loss of the last complete reporting period, 0..1
 * @param usage         the over-use detector's current hypothesis
 * @param applicationLimited whether we send clearly less than the estimate (ALR)
 * @param unknownFeedbackPackets feedback entries for sequence numbers we have no send record of (counted drop)
 */
public record BweStats(long estimateBps, long delayBasedBps, long lossBasedBps, long ackedBps, long sendBps,
                       double lossFraction, BandwidthUsage usage, boolean applicationLimited, EstimatorMode mode,
                       int rttMs, long unknownFeedbackPackets) {
}
