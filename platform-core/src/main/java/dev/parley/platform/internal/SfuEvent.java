package dev.parley.platform.internal;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/**
 * Event posted by an SFU to the owner controller's {@code events_url}. Hints only: the controller
 * re-reads its own state. {@code data} carries type-specific fields (track ids, speakers, quality).
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SfuEvent(String type, String meetingId, String participantId, long transportGeneration,
                       String sfu, JsonNode data) {
    public static final String TRANSPORT_CONNECTED = "transport_connected";
    public static final String TRANSPORT_FAILED = "transport_failed";
    public static final String TRANSPORT_CLOSED = "transport_closed";
    public static final String TRACK_PUBLISHED = "track_published";
    public static final String TRACK_UNPUBLISHED = "track_unpublished";
    public static final String ACTIVE_SPEAKERS = "active_speakers";
    public static final String QUALITY = "quality";
    /**
     * SFU → the publisher's client (dynacast): which simulcast encodings of one of its video tracks anyone
     * receives. Data {@code {track_id, mid, max_spatial_layer, active_layers: [bool per layer], rids,
     * paused, resumed}}; the client sets {@code encodings[i].active}. Targeted at {@code participant_id}.
     */
    public static final String PUBLISHER_LAYERS = "publisher_layers";
    /**
     * SFU → a subscriber's client: one of its video subscriptions is paused (nothing forwarded) or resumed.
     * Data {@code {track_id, publisher_id, mid, reason}} (reason {@code bandwidth}). Targeted at {@code participant_id}.
     */
    public static final String SUBSCRIPTION_PAUSED = "subscription_paused";
    public static final String SUBSCRIPTION_RESUMED = "subscription_resumed";
    /**
     * SFU → a subscriber's client: its slot map changed without an offer (top-N audio moved a slot to another
     * speaker). Data {@code {sequence, slot_assignments: [{mid, participant_id, track_id, kind, source}]}}, the whole
     * map as in a transport answer. Targeted at {@code participant_id}.
     */
    public static final String SLOT_ASSIGNMENTS = "slot_assignments";
    /**
     * The same, to a client whose subscribe transport asked for {@code slot_deltas}: only the slots that moved.
     * Data {@code {sequence, base, version, changes: [{mid, participant_id, track_id, kind, source}]}}, an emptied
     * slot as {@code {mid, participant_id: null}}; it applies to the map of version {@code base} and makes it
     * {@code version} (docs/internal-api.md "Top-N audio"). Targeted at {@code participant_id}.
     */
    public static final String SLOT_DELTA = "slot_delta";

    /** Events meant for {@code participant_id}'s own client only (not the whole meeting). */
    @JsonIgnore
    public boolean targeted() {
        return PUBLISHER_LAYERS.equals(type) || SUBSCRIPTION_PAUSED.equals(type) || SUBSCRIPTION_RESUMED.equals(type)
                || QUALITY.equals(type) || SLOT_ASSIGNMENTS.equals(type) || SLOT_DELTA.equals(type);
    }
}
