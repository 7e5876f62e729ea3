package dev.parley.sfu.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.platform.grant.Grant;
import dev.parley.platform.grant.PublishRights;
import dev.parley.platform.grant.PutGrantBatchRequest;
import dev.parley.platform.grant.PutGrantsRequest;
import dev.parley.platform.internal.CreateTransportRequest;
import dev.parley.platform.internal.PublishSource;
import dev.parley.platform.internal.TrackSubscription;
import dev.parley.platform.internal.TransportKind;
import dev.parley.platform.internal.UpdateSubscriptionsRequest;
import dev.parley.sfu.speaker.TopNAudioSelector;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static dev.parley.sfu.api.JsonFields.array;
import static dev.parley.sfu.api.JsonFields.body;
import static dev.parley.sfu.api.JsonFields.bool;
import static dev.parley.sfu.api.JsonFields.integer;
import static dev.parley.sfu.api.JsonFields.object;
import static dev.parley.sfu.api.JsonFields.oneOf;
import static dev.parley.sfu.api.JsonFields.optionalArray;
import static dev.parley.sfu.api.JsonFields.optionalBool;
import static dev.parley.sfu.api.JsonFields.optionalText;
import static dev.parley.sfu.api.JsonFields.text;

/**
 * The internal API's request bodies (docs/internal-api.md), read whole from their JSON trees: every required field
 * present and of its type, every list element an object. A request is either entirely well-formed or refused with
 * {@link JsonFields.Invalid} before any of it is applied.
 */
final class RequestBodies {
    private static final Set<String> KINDS = Set.of("publish", "subscribe");

    private RequestBodies() {}

    static PutGrantsRequest putGrants(JsonNode n) {
        return meetingGrants(body(n), "");
    }

    static PutGrantBatchRequest putGrantBatch(JsonNode n) {
        JsonNode meetings = array(body(n), "meetings", "");
        List<PutGrantsRequest> out = new ArrayList<>(meetings.size());
        for (int i = 0; i < meetings.size(); i++) {
            String path = "meetings[" + i + "]";
            out.add(meetingGrants(object(meetings.get(i), path), path + "."));
        }
        return new PutGrantBatchRequest(out);
    }

    static CreateTransportRequest createTransport(JsonNode n) {
        body(n);
        String meeting = text(n, "meeting_id", ""), participant = text(n, "participant_id", "");
        long generation = integer(n, "transport_generation", ""), epoch = integer(n, "controller_epoch", "");
        TransportKind kind = TransportKind.fromWire(oneOf(n, "kind", "", KINDS));
        String ticket = text(n, "connect_ticket", ""), offer = text(n, "sdp_offer", "");
        JsonNode g = n.get("grant");
        Grant grant = g == null || g.isNull() ? null : grant(g, "grant");
        String eventsUrl = optionalText(n, "events_url", "");
        JsonNode s = optionalArray(n, "sources", "");
        List<PublishSource> sources = null;
        if (s != null) {
            sources = new ArrayList<>(s.size());
            for (int i = 0; i < s.size(); i++) {
                String path = "sources[" + i + "]";
                JsonNode e = object(s.get(i), path);
                sources.add(new PublishSource(text(e, "mid", path + "."), oneOf(e, "source", path + ".", PublishSource.VALUES)));
            }
        }
        JsonNode topN = n.get("audio_top_n");
        Integer audioTopN = topN == null || topN.isNull() ? null
                : (int) integer(n, "audio_top_n", "", 1, TopNAudioSelector.MAX_N);
        boolean slotDeltas = optionalBool(n, "slot_deltas", "", false);
        return new CreateTransportRequest(meeting, participant, generation, epoch, kind, ticket, offer, grant, eventsUrl,
                sources, audioTopN, slotDeltas);
    }

    static UpdateSubscriptionsRequest updateSubscriptions(JsonNode n) {
        body(n);
        long epoch = integer(n, "controller_epoch", "");
        JsonNode tracks = array(n, "tracks", "");
        List<TrackSubscription> out = new ArrayList<>(tracks.size());
        for (int i = 0; i < tracks.size(); i++) {
            String path = "tracks[" + i + "]", p = path + ".";
            JsonNode t = object(tracks.get(i), path);
            out.add(new TrackSubscription(text(t, "track_id", p), dimension(t, "max_width", p), dimension(t, "max_height", p),
                    dimension(t, "max_fps", p), optionalBool(t, "pinned", p, false)));
        }
        return new UpdateSubscriptionsRequest(epoch, out);
    }

    private static PutGrantsRequest meetingGrants(JsonNode n, String prefix) {
        String meeting = text(n, "meeting_id", prefix);
        long epoch = integer(n, "controller_epoch", prefix);
        JsonNode grants = array(n, "grants", prefix);
        List<Grant> out = new ArrayList<>(grants.size());
        for (int i = 0; i < grants.size(); i++) out.add(grant(grants.get(i), prefix + "grants[" + i + "]"));
        return new PutGrantsRequest(meeting, epoch, out);
    }

    /** A grant (docs/internal-api.md): every field required. */
    static Grant grant(JsonNode n, String path) {
        object(n, path);
        String p = path + ".";
        JsonNode publish = object(n, "publish", p);
        String pp = p + "publish.";
        return new Grant(text(n, "participant_id", p), integer(n, "version", p), integer(n, "controller_epoch", p),
                new PublishRights(bool(publish, "audio", pp), bool(publish, "video", pp), bool(publish, "screen", pp)),
                bool(n, "subscribe", p), integer(n, "ttl_ms", p, 0, Grant.MAX_TTL_MS));
    }

    private static int dimension(JsonNode n, String field, String prefix) {
        return (int) integer(n, field, prefix, 0, Integer.MAX_VALUE);
    }
}
