package dev.parley.platform.internal;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

import java.util.List;

/**
 * 200 answer of {@code POST /internal/v1/transports}. {@code slot_version} (subscribe): the version of the slot map
 * in {@code slot_assignments}, which the next {@code slot_delta} notice names as its {@code base}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonIgnoreProperties(ignoreUnknown = true)
public record CreateTransportResponse(String transportId, String sdpAnswer, List<SlotAssignment> slotAssignments, Long slotVersion) {
    public CreateTransportResponse(String transportId, String sdpAnswer, List<SlotAssignment> slotAssignments) {
        this(transportId, sdpAnswer, slotAssignments, null);
    }
}
