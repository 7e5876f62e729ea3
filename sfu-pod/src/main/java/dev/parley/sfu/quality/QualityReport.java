package dev.parley.sfu.quality;

/**
 * What the SFU sends to the owner controller (event type {@code quality}) for one participant, at low rate.
 * Figures are the worst seen over the reporting interval (lowest estimate and layer): an indicator that
 * averages away a two-second freeze is not believed by users.
 */
public record QualityReport(String participantId, ConnectionQuality quality, double lossFraction, int rttMs,
                            double jitterMs, long estimateBps, int topSpatialLayer, long sequence) {
}
