package dev.parley.sfu.allocation;

import java.util.List;

/**
 * What to tell a publisher about one of its video tracks (through signaling: the client sets
 * {@code active=false} on the paused encodings with {@code RTCRtpSender.setParameters}).
 *
 * @param trackId         the publisher's track
 * @param maxSpatialLayer highest spatial layer anyone needs; layers above it are paused, -1 = none needed
 * @param paused          spatial layers that were active and must stop now
 * @param resumed         spatial layers that were paused and must start now
 */
public record DynacastDecision(String trackId, int maxSpatialLayer, List<Integer> paused, List<Integer> resumed) {
}
