package dev.parley.platform.etcd;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

import java.util.List;

/**
 * Registry entry of an SFU pod at {@code /parley/v1/regions/{region}/sfu/{pod}}, written by the SFU under
 * its process lease and refreshed every few seconds. {@code state} is {@code ACTIVE} or {@code DRAINING}.
 *
 * @param internalUrl base URL of the internal API, e.g. {@code http://127.0.0.1:7081}
 * @param mediaAddress address announced in ICE candidates
 * @param mediaUdpPort  worker 0's UDP port (the only one before SFUs had several media workers)
 * @param mediaTcpPort  worker 0's ICE-TCP port
 * @param mediaWorkers  every media worker's ports, worker 0 first; absent in entries of older SFUs (then
 *                      {@link #mediaPorts()} is the one pair above)
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonIgnoreProperties(ignoreUnknown = true)
public record SfuEntry(String pod, String region, String state, String internalUrl, String mediaAddress,
                       int mediaUdpPort, int mediaTcpPort, SfuLoad load, long updatedAtMs, List<MediaPorts> mediaWorkers) {
    public static final String ACTIVE = "ACTIVE";
    public static final String DRAINING = "DRAINING";

    /** An entry of an SFU with one media worker. */
    public SfuEntry(String pod, String region, String state, String internalUrl, String mediaAddress,
                    int mediaUdpPort, int mediaTcpPort, SfuLoad load, long updatedAtMs) {
        this(pod, region, state, internalUrl, mediaAddress, mediaUdpPort, mediaTcpPort, load, updatedAtMs, null);
    }

    /** One media worker's ports (a port of 0 means none). */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record MediaPorts(int udpPort, int tcpPort) {}

    /** The ports of every media worker (peers such as TURN must reach all of them). */
    public List<MediaPorts> mediaPorts() {
        return mediaWorkers == null || mediaWorkers.isEmpty() ? List.of(new MediaPorts(mediaUdpPort, mediaTcpPort)) : mediaWorkers;
    }

    public boolean isActive() {
        return ACTIVE.equals(state);
    }

    /** Load numbers published by the SFU; {@code stress} is its own 0..1 (or above) summary. */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record SfuLoad(long egressBps, long ingressBps, long packetsPerSecond, int transports,
                          int subscriptions, int meetings, double stress) {
        public static SfuLoad idle() {
            return new SfuLoad(0, 0, 0, 0, 0, 0, 0.0);
        }
    }
}
