package dev.parley.operator.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.parley.operator.crd.MissingRange;
import dev.parley.operator.model.PodLoad;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Lenient parsing of registry values. The writers (SFU, TURN, recorder) evolve on their own, so unknown
 * fields are ignored and a few spellings are accepted ({@code pps} or {@code packets_per_second}).
 */
public final class RegistryJson {
    static final ObjectMapper MAPPER = new ObjectMapper();

    private RegistryJson() {
    }

    public static PodLoad parsePod(byte[] json) throws IOException {
        JsonNode n = MAPPER.readTree(json);
        JsonNode load = n.path("load");
        String state = n.path("state").asText(PodLoad.ACTIVE);
        String url = n.hasNonNull("internal_url") ? n.get("internal_url").asText() : null;
        if (url == null && n.hasNonNull("address") && n.path("ports").hasNonNull("internal")) {
            // TURN publishes {address, ports{internal}} instead of a URL
            url = "http://" + n.get("address").asText() + ":" + n.path("ports").get("internal").asInt();
        }
        return new PodLoad(state,
                num(load, n, "egress_bps"), num(load, n, "ingress_bps"),
                Math.max(num(load, n, "pps"), num(load, n, "packets_per_second")),
                num(load, n, "transports"), num(load, n, "subscriptions"),
                load.has("stress") ? load.path("stress").asDouble(0) : n.path("stress").asDouble(0),
                num(load, n, "allocations"), num(load, n, "relayed_bps"), url);
    }

    /** A metric may sit under "load" (SFU) or at the top level (TURN). */
    private static long num(JsonNode load, JsonNode top, String field) {
        if (load.has(field)) {
            return load.path(field).asLong(0);
        }
        return top.path(field).asLong(0);
    }

    public static RecorderProgress parseRunner(byte[] json) throws IOException {
        JsonNode n = MAPPER.readTree(json);
        List<MissingRange> missing = new ArrayList<>();
        for (JsonNode r : n.path("missing_ranges")) {
            missing.add(new MissingRange(r.path("from_ms").asLong(), r.path("to_ms").asLong(),
                    r.hasNonNull("track") ? r.get("track").asText() : null));
        }
        return new RecorderProgress(n.path("pod").asText(null), n.path("generation").asInt(0),
                n.hasNonNull("phase") ? n.get("phase").asText() : null, n.path("segments").asLong(0), missing);
    }

    /** A request key's value; the job id, meeting id and region are required. */
    public static RecordingRequest parseRequest(byte[] json) throws IOException {
        JsonNode n = MAPPER.readTree(json);
        String job = n.path("job_id").asText("");
        String meeting = n.path("meeting_id").asText("");
        if (job.isEmpty() || meeting.isEmpty()) {
            throw new IOException("job_id and meeting_id are required");
        }
        return new RecordingRequest(job, meeting, n.path("tenant_id").asText(null), n.path("region").asText(null),
                n.path("requested_at").asText(null), n.path("stop_requested").asBoolean(false));
    }
}
