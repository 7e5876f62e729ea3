package dev.parley.platform.internal;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

import dev.parley.platform.grant.GrantAck;
import java.util.List;

/**
 * 200 answer of {@code PUT /internal/v1/grants/batch}: one result per meeting of the request, in its order.
 * A meeting's result carries either its acks or the error it would have got alone (e.g. {@code stale_epoch}
 * with {@code highest_epoch}); one meeting's rejection does not affect the others.
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonIgnoreProperties(ignoreUnknown = true)
public record PutGrantBatchResponse(List<MeetingResult> meetings) {

    /** The outcome for one meeting: {@code acks} when applied, else {@code error}. */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonIgnoreProperties(ignoreUnknown = true)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record MeetingResult(String meetingId, List<GrantAck> acks, InternalError error) {
        public static MeetingResult applied(String meetingId, List<GrantAck> acks) {
            return new MeetingResult(meetingId, acks, null);
        }

        public static MeetingResult rejected(String meetingId, InternalError error) {
            return new MeetingResult(meetingId, null, error);
        }
    }
}
