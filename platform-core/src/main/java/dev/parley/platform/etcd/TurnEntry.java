package dev.parley.platform.etcd;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

import java.util.List;

/**
 * Registry entry of a TURN pod at {@code /parley/v1/regions/{region}/turn/{pod}}.
 *
 * @param urls TURN URLs clients may use, e.g. {@code turn:127.0.0.1:3478?transport=udp}
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonIgnoreProperties(ignoreUnknown = true)
public record TurnEntry(String pod, String region, String state, String internalUrl, List<String> urls,
                        int allocations, double stress, long updatedAtMs) {
    public boolean isActive() {
        return SfuEntry.ACTIVE.equals(state);
    }
}
