package dev.parley.kubectl.inspect;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * What {@code inspect meeting} found (kind {@code MeetingInspection}, docs/kubectl-parley.md): the owner from etcd,
 * and the owner's own view of the meeting ({@code GET /internal/v1/meetings/{id}/state}, passed on as it came, snake_case
 * keys) when it was asked and answered; {@code stateError} says why {@code state} is null otherwise.
 */
@JsonPropertyOrder({"apiVersion", "kind", "meeting", "owner", "state", "stateError"})
public record MeetingInspection(String apiVersion, String kind, String meeting, Owner owner, JsonNode state, String stateError) {

    /** {@code controllerEpoch} is the create revision of the owner key; {@code lease} is the etcd lease id in hex. */
    public record Owner(String controller, long controllerEpoch, String lease, String internalUrl) {
    }
}
