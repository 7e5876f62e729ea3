package dev.parley.platform.etcd;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * Registry entry of an SFU pod at {@code /parley/v1/regions/{region}/sfu/{pod}}, written by the SFU under
 * its process lease and refreshed every few seconds. {@code state} is {@code ACTIVE} or {@code DRAINING}.
 *
 * @param internalUrl base URL of the internal API, e.g. {@code http://127.0.0.1:7081}
 * @param mediaAddress address announced in ICE candidates
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonIgnoreProperties(ignoreUnknown = true)
public record SfuEntry(String pod, String region, String state, String internalUrl, String mediaAddress,
                       int mediaUdpPort, int mediaTcpPort, SfuLoad load, long updatedAtMs) {
    public static final String ACTIVE = "ACTIVE";
    public static final String DRAINING = "DRAINING";

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
