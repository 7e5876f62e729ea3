package dev.parley.sfu.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.sfu.relay.RelayKey;
import dev.parley.sfu.relay.RelayService;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The relay endpoints of the internal API (docs/internal-api.md "Relays between SFUs"), kept out of
 * {@link InternalApi}: bodies checked field by field before anything is applied, refusals as the API's usual
 * problem+json (the exceptions propagate to {@link InternalApi}'s handler).
 */
final class RelayRoutes {
    static final String PREFIX = "/internal/v1/relays";
    /** A pod name or relay id: it becomes a metric label, so it is kept plain. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,127}");

    private static final Pattern IP_LITERAL = Pattern.compile("[0-9]{1,3}(\\.[0-9]{1,3}){3}|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*");

    /** {@code body == null}: no content (204). */
    record Result(int status, Object body) {}

    private final RelayService relays;

    RelayRoutes(RelayService relays) { this.relays = relays; }

    /** null: not a relay path. */
    Result route(String method, String path, JsonNode body, java.net.URI uri, java.util.function.ToLongFunction<String> query) {
        if (path.equals(PREFIX + "/in") && method.equals("POST")) return new Result(200, accept(JsonFields.body(body)));
        if (path.equals(PREFIX + "/out") && method.equals("POST")) return new Result(200, send(JsonFields.body(body)));
        if (path.startsWith(PREFIX + "/") && method.equals("DELETE")) {
            String id = name(path.substring(PREFIX.length() + 1), "relay_id");
            relays.close(id, query.applyAsLong("controller_epoch"));
            return new Result(204, null);
        }
        return null;
    }

    private Map<String, Object> accept(JsonNode b) {
        String id = name(JsonFields.text(b, "relay_id", ""), "relay_id");
        String meeting = JsonFields.text(b, "meeting_id", "");
        long epoch = JsonFields.integer(b, "controller_epoch", "");
        String origin = name(JsonFields.text(b, "origin_sfu", ""), "origin_sfu");
        RelayKey key = key(b);
        JsonNode arr = JsonFields.array(b, "tracks", "");
        if (arr.isEmpty() || arr.size() > 64) throw new JsonFields.Invalid("tracks: 1 to 64 entries");
        List<RelayService.InTrack> tracks = new ArrayList<>();
        for (int i = 0; i < arr.size(); i++) {
            String p = "tracks[" + i + "].";
            JsonNode t = JsonFields.object(arr.get(i), "tracks[" + i + "]");
            String trackId = JsonFields.text(t, "track_id", p);
            boolean video = JsonFields.oneOf(t, "kind", p, Set.of("audio", "video")).equals("video");
            int n = (int) JsonFields.optionalInteger(t, "simulcast_layers", p, 1, 1, 4);
            JsonNode la = JsonFields.array(t, "layers", p);
            if (la.isEmpty()) throw new JsonFields.Invalid(p + "layers: at least one layer index");
            List<Integer> layers = new ArrayList<>();
            for (int k = 0; k < la.size(); k++) {
                JsonNode v = la.get(k);
                if (!v.canConvertToInt() || !v.isIntegralNumber() || v.intValue() < 0 || v.intValue() >= n) {
                    throw new JsonFields.Invalid(p + "layers[" + k + "]: must be an integer 0.." + (n - 1));
                }
                if (!layers.contains(v.intValue())) layers.add(v.intValue());
            }
            tracks.add(new RelayService.InTrack(trackId, video, n, layers));
        }
        return relays.accept(id, meeting, epoch, origin, key, tracks);
    }

    private Map<String, Object> send(JsonNode b) {
        String id = name(JsonFields.text(b, "relay_id", ""), "relay_id");
        String meeting = JsonFields.text(b, "meeting_id", "");
        long epoch = JsonFields.integer(b, "controller_epoch", "");
        String targetSfu = name(JsonFields.text(b, "target_sfu", ""), "target_sfu");
        JsonNode tgt = JsonFields.object(b, "target", "");
        String address = JsonFields.text(tgt, "address", "target.");
        int port = (int) JsonFields.integer(tgt, "udp_port", "target.", 1, 65535);
        InetSocketAddress target;
        if (!IP_LITERAL.matcher(address).matches()) throw new JsonFields.Invalid("target.address: must be an IP address literal");
        try {
            target = new InetSocketAddress(InetAddress.getByName(address), port);   // a literal: no DNS look-up
        } catch (java.io.IOException e) {
            throw new JsonFields.Invalid("target.address: must be an IP address literal");
        }
        int rtcpSsrc = (int) JsonFields.integer(b, "rtcp_ssrc", "", 1, 0xFFFFFFFFL);
        boolean forwardRelayed = JsonFields.optionalBool(b, "forward_relayed", "", false);
        RelayKey key = key(b);
        JsonNode arr = JsonFields.array(b, "tracks", "");
        if (arr.isEmpty() || arr.size() > 64) throw new JsonFields.Invalid("tracks: 1 to 64 entries");
        List<RelayService.OutTrack> tracks = new ArrayList<>();
        for (int i = 0; i < arr.size(); i++) {
            String p = "tracks[" + i + "].";
            JsonNode t = JsonFields.object(arr.get(i), "tracks[" + i + "]");
            String trackId = JsonFields.text(t, "track_id", p);
            JsonNode la = JsonFields.array(t, "layers", p);
            if (la.isEmpty()) throw new JsonFields.Invalid(p + "layers: at least one {index, ssrc}");
            Map<Integer, Integer> ssrcs = new LinkedHashMap<>();
            for (int k = 0; k < la.size(); k++) {
                String q = p + "layers[" + k + "].";
                JsonNode l = JsonFields.object(la.get(k), p + "layers[" + k + "]");
                int index = (int) JsonFields.integer(l, "index", q, 0, 3);
                int ssrc = (int) JsonFields.integer(l, "ssrc", q, 1, 0xFFFFFFFFL);
                ssrcs.put(index, ssrc);
            }
            tracks.add(new RelayService.OutTrack(trackId, ssrcs));
        }
        return relays.send(id, meeting, epoch, targetSfu, target, rtcpSsrc, key, forwardRelayed, tracks);
    }

    private static RelayKey key(JsonNode b) {
        JsonNode s = JsonFields.object(b, "srtp", "");
        String profile = JsonFields.text(s, "profile", "srtp.");
        String key = JsonFields.text(s, "key", "srtp.");
        try {
            return RelayKey.parse(profile, key);
        } catch (IllegalArgumentException e) {
            throw new JsonFields.Invalid(e.getMessage());        // names the field, never the key
        }
    }

    private static String name(String v, String field) {
        if (!NAME.matcher(v).matches()) throw new JsonFields.Invalid(field + ": letters, digits, '.', '_', ':', '-' (at most 128)");
        return v;
    }
}
