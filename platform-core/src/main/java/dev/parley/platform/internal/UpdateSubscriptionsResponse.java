package dev.parley.platform.internal;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

import java.util.List;

/** 200 answer of the subscriptions update: the whole slot map and its {@code slot_version} (as a transport answer's). */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonIgnoreProperties(ignoreUnknown = true)
public record UpdateSubscriptionsResponse(List<SlotAssignment> slotAssignments, Long slotVersion) {
    public UpdateSubscriptionsResponse(List<SlotAssignment> slotAssignments) {
        this(slotAssignments, null);
    }
}
