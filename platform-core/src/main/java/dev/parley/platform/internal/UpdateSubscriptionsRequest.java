package dev.parley.platform.internal;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

import java.util.List;

/** Body of {@code PUT /internal/v1/meetings/{mid}/participants/{pid}/subscriptions}. */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonIgnoreProperties(ignoreUnknown = true)
public record UpdateSubscriptionsRequest(long controllerEpoch, List<TrackSubscription> tracks) {
}
