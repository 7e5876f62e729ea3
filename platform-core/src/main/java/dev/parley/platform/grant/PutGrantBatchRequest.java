package dev.parley.platform.grant;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

import java.util.List;

/**
 * Body of {@code PUT /internal/v1/grants/batch}: the grants of several meetings in ONE request (a controller's
 * renewal round sends one per SFU instead of one per meeting). Each entry is fenced on its own
 * {@code controller_epoch}, exactly as if it had been sent alone to {@code PUT /internal/v1/grants}.
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonIgnoreProperties(ignoreUnknown = true)
public record PutGrantBatchRequest(List<PutGrantsRequest> meetings) {
}
