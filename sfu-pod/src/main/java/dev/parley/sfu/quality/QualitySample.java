package dev.parley.sfu.quality;

/**
 * What the SFU measured about one participant's connection since the previous sample (typically one per
 * RTCP report interval, about once a second). Use the worse direction where both exist: the loss of the
 * participant's uplink (from our receive statistics) or downlink (from its receiver reports / transport-cc),
 * whichever is higher.
 *
 * @param lossFraction  packet loss 0..1
 * @param rttMs         round-trip time, -1 if unknown
 * @param jitterMs      interarrival jitter, -1 if unknown
 * @param estimateBps   the downlink bandwidth estimate, -1 if the participant subscribes to nothing
 * @param videoDeficient a subscribed video track is below the layer its layout wants, for bandwidth
 * @param videoPaused   a subscribed video track is paused for bandwidth
 * @param mediaFlowing  any packet or feedback arrived from the participant since the previous sample
 * @param topSpatialLayer highest spatial layer forwarded to the participant on any video track, -1 if none
 */
public record QualitySample(double lossFraction, int rttMs, double jitterMs, long estimateBps,
                            boolean videoDeficient, boolean videoPaused, boolean mediaFlowing, int topSpatialLayer) {
}
