package dev.parley.platform.grant;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

import java.util.List;

/** Body of {@code PUT /internal/v1/grants}: a batch of grants of one meeting at one controller epoch. */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonIgnoreProperties(ignoreUnknown = true)
public record PutGrantsRequest(String meetingId, long controllerEpoch, List<Grant> grants) {
}
