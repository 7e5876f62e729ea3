package dev.parley.platform.grant;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * Media authorisation of one participant on an SFU. The SFU sets {@code expires_at} to its own monotonic
 * receipt time + {@code ttl_ms} and stops forwarding when it passes without renewal.
 *
 * @param version the participant's version in PostgreSQL; same epoch + lower version is ignored
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonIgnoreProperties(ignoreUnknown = true)
public record Grant(String participantId, long version, long controllerEpoch, PublishRights publish,
                    boolean subscribe, long ttlMs) {
    public static final long MAX_TTL_MS = 3000;

    public Grant {
        if (ttlMs < 0 || ttlMs > MAX_TTL_MS) {
            throw new IllegalArgumentException("grant ttl_ms must be within 0..3000");
        }
    }

    /** A grant that authorises nothing (removal, ban); still versioned so it overrides older grants. */
    public static Grant revoked(String participantId, long version, long epoch, long ttlMs) {
        return new Grant(participantId, version, epoch, PublishRights.NONE, false, ttlMs);
    }
}
