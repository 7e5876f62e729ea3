package dev.parley.platform.internal;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * Which remote track the SFU sends on which recvonly {@code mid} of the subscribe connection. {@code source}
 * ({@code microphone | camera | screen}) is what the publisher declared for it (camera/microphone by kind when
 * it declared nothing).
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonIgnoreProperties(ignoreUnknown = true)
public record SlotAssignment(String mid, String participantId, String trackId, String kind, String source) {
    public SlotAssignment(String mid, String participantId, String trackId, String kind) {
        this(mid, participantId, trackId, kind, null);
    }
}
