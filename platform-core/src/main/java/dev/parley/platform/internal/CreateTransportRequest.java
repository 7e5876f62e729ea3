package dev.parley.platform.internal;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import dev.parley.platform.grant.Grant;

import java.util.List;

/**
 * Body of {@code POST /internal/v1/transports}: create (or restart) one transport from the browser's SDP
 * offer. {@code events_url} is where the SFU posts transport/track events (the owner's internal port).
 * {@code sources} (publish only, optional): what each m-section carries ({@link PublishSource}); an m-section
 * not named is a camera (video) or microphone (audio). {@code audio_top_n} (optional): the meeting's top-N audio
 * setting, how many speakers each receiver's audio slots carry (absent: the SFU keeps what it has, default 3).
 * {@code slot_deltas} (subscribe only, optional): the client reads {@code slot_delta} notices, so top-N moves reach
 * it as the moved slots only, not the whole slot map (absent or false: whole maps, as before).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonIgnoreProperties(ignoreUnknown = true)
public record CreateTransportRequest(String meetingId, String participantId, long transportGeneration,
                                     long controllerEpoch, TransportKind kind, String connectTicket,
                                     String sdpOffer, Grant grant, String eventsUrl, List<PublishSource> sources,
                                     Integer audioTopN, Boolean slotDeltas) {
    public CreateTransportRequest(String meetingId, String participantId, long transportGeneration,
                                  long controllerEpoch, TransportKind kind, String connectTicket,
                                  String sdpOffer, Grant grant, String eventsUrl, List<PublishSource> sources,
                                  Integer audioTopN) {
        this(meetingId, participantId, transportGeneration, controllerEpoch, kind, connectTicket, sdpOffer, grant,
                eventsUrl, sources, audioTopN, null);
    }

    public CreateTransportRequest(String meetingId, String participantId, long transportGeneration,
                                  long controllerEpoch, TransportKind kind, String connectTicket,
                                  String sdpOffer, Grant grant, String eventsUrl, List<PublishSource> sources) {
        this(meetingId, participantId, transportGeneration, controllerEpoch, kind, connectTicket, sdpOffer, grant,
                eventsUrl, sources, null, null);
    }

    public CreateTransportRequest(String meetingId, String participantId, long transportGeneration,
                                  long controllerEpoch, TransportKind kind, String connectTicket,
                                  String sdpOffer, Grant grant, String eventsUrl) {
        this(meetingId, participantId, transportGeneration, controllerEpoch, kind, connectTicket, sdpOffer, grant,
                eventsUrl, null, null, null);
    }

    @Override
    public String toString() { // no ticket in logs
        return "CreateTransportRequest[" + meetingId + "/" + participantId + " gen=" + transportGeneration
                + " epoch=" + controllerEpoch + " kind=" + kind + "]";
    }
}
