package dev.parley.platform.internal;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * Error body of the internal API, e.g. {@code 409 {code: stale_epoch, highest_epoch}}.
 * Codes: {@link #STALE_EPOCH}, {@link #STALE_GENERATION}, {@code bad_ticket}, {@code unauthorized}, ...
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record InternalError(String code, Long highestEpoch, String detail) {
    public static final String STALE_EPOCH = "stale_epoch";
    public static final String STALE_GENERATION = "stale_generation";
}
