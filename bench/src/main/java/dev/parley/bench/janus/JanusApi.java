package dev.parley.bench.janus;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;

/**
 * The Janus API messages the bench sends (core requests and VideoRoom request bodies) and the replies and events it
 * reads back. Pure functions of their arguments, so they are tested without a Janus process.
 */
final class JanusApi {
    static final String VIDEOROOM = "janus.plugin.videoroom";
    static final ObjectMapper JSON = new ObjectMapper();

    private JanusApi() {}

    static ObjectNode create(String tx) { return core("create", tx); }

    static ObjectNode attach(String tx, String plugin) { return core("attach", tx).put("plugin", plugin); }

    static ObjectNode keepalive(String tx) { return core("keepalive", tx); }

    /** A request to the handle's plugin; {@code jsepType} null: no JSEP. */
    static ObjectNode message(String tx, ObjectNode body, String jsepType, String sdp) {
        ObjectNode m = core("message", tx);
        m.set("body", body);
        if (jsepType != null) m.putObject("jsep").put("type", jsepType).put("sdp", sdp);
        return m;
    }

    /** One trickled candidate of the client's (half trickle: Janus's own are in its SDP). */
    static ObjectNode trickle(String tx, String mid, int mLineIndex, String candidate) {
        ObjectNode m = core("trickle", tx);
        m.putObject("candidate").put("sdpMid", mid).put("sdpMLineIndex", mLineIndex).put("candidate", candidate);
        return m;
    }

    /** End of the client's candidates. */
    static ObjectNode trickleCompleted(String tx) {
        ObjectNode m = core("trickle", tx);
        m.putObject("candidate").put("completed", true);
        return m;
    }

    /**
     * A room for one meeting. Audio level, video orientation, playout delay and transport-wide-cc extensions off:
     * the load client sends none of them, and they stay out of the subscription offers, so Janus forwards what the
     * Parley SFU forwards. No periodic keyframe requests (fir_freq 0), no bitrate cap.
     */
    static ObjectNode createRoom(long room, int publishers) {
        return JSON.createObjectNode().put("request", "create").put("room", room).put("publishers", publishers)
                .put("is_private", true).put("audiocodec", "opus").put("videocodec", "vp8").put("bitrate", 0)
                .put("fir_freq", 0).put("audiolevel_ext", false).put("videoorient_ext", false)
                .put("playoutdelay_ext", false).put("transport_wide_cc_ext", false).put("notify_joining", false);
    }

    static ObjectNode joinPublisher(long room, String display) {
        return JSON.createObjectNode().put("request", "join").put("ptype", "publisher").put("room", room).put("display", display);
    }

    /** Sent with the JSEP offer; Janus answers with a "configured" event carrying the JSEP answer. */
    static ObjectNode publish() { return JSON.createObjectNode().put("request", "publish"); }

    /** One subscription (one peer connection) to every stream of each feed; Janus answers "attached" with its offer. */
    static ObjectNode joinSubscriber(long room, List<Long> feeds) {
        ObjectNode b = JSON.createObjectNode().put("request", "join").put("ptype", "subscriber").put("room", room);
        ArrayNode streams = b.putArray("streams");
        for (long f : feeds) streams.addObject().put("feed", f);
        return b;
    }

    /** Sent with the subscriber's JSEP answer. */
    static ObjectNode start() { return JSON.createObjectNode().put("request", "start"); }

    private static ObjectNode core(String janus, String tx) {
        return JSON.createObjectNode().put("janus", janus).put("transaction", tx);
    }

    static String write(ObjectNode m) {
        try {
            return JSON.writeValueAsString(m);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * One reply or event. {@code sender} and {@code dataId} are 0 when absent; {@code pluginData} is the plugin's
     * {@code plugindata.data} or null.
     */
    record Reply(String janus, String transaction, long sender, long dataId, JsonNode pluginData, String jsepType,
                 String jsepSdp, String error) {
        /** The VideoRoom reply kind ("joined", "event", "attached", "created"...), or null. */
        String videoroom() { return pluginData == null || !pluginData.has("videoroom") ? null : pluginData.get("videoroom").asText(); }

        /** A core error ("code reason") or a plugin error ("videoroom code reason"), else null. */
        String failure() { return error; }
    }

    /** A POST reply (one object) or a long-poll answer (one object, or an array of them with maxev &gt; 1). */
    static List<Reply> parse(String body) {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not a Janus API reply: " + e.getOriginalMessage());
        }
        List<Reply> r = new ArrayList<>();
        if (root == null || !(root.isArray() || root.isObject())) throw new IllegalArgumentException("not a Janus API reply");
        if (root.isArray()) for (JsonNode n : root) r.add(reply(n));
        else r.add(reply(root));
        return r;
    }

    private static Reply reply(JsonNode n) {
        if (!n.has("janus")) throw new IllegalArgumentException("not a Janus API reply: no \"janus\" field");
        JsonNode pd = n.path("plugindata").get("data");
        String error = null;
        if (n.has("error")) error = n.get("error").path("code").asInt() + " " + n.get("error").path("reason").asText();
        else if (pd != null && pd.has("error_code")) error = "videoroom " + pd.get("error_code").asInt() + " " + pd.path("error").asText();
        JsonNode jsep = n.get("jsep");
        return new Reply(n.get("janus").asText(), n.hasNonNull("transaction") ? n.get("transaction").asText() : null,
                n.path("sender").asLong(0), n.path("data").path("id").asLong(0), pd,
                jsep == null ? null : jsep.path("type").asText(null), jsep == null ? null : jsep.path("sdp").asText(null), error);
    }
}
