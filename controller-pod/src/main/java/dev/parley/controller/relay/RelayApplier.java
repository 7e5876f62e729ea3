package dev.parley.controller.relay;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.cascade.DistributionPlan;
import dev.parley.controller.cascade.Relay;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

/**
 * Makes the SFUs carry a meeting's {@link DistributionPlan}: a relay per planned hop (one track, one SFU pair),
 * created receiver first ({@code relays/in}) then origin ({@code relays/out}) with a fresh SRTP key from
 * {@link SecureRandom} and the owner's {@code controller_epoch}; re-sent under the same relay id when its layers
 * change (the SFUs replace it); deleted at both ends when the plan drops the hop. The side effects of the pure
 * planner, nothing else: what to plan is {@link RelayDriver}'s.
 */
public final class RelayApplier {
    /** One apply round's outcome: relays created or changed, deleted, failed, and the PREPARING hops now in place. */
    public record Outcome(int created, int deleted, int failed, List<Relay> prepared) {
    }

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RelayApplier.class);
    private final RelayCalls calls;

    public RelayApplier(RelayCalls calls) {
        this.calls = calls;
    }

    /**
     * Applies {@code plan} over {@code applied} (hop key → relay, updated in place).
     *
     * @param urlOf pod → internal base URL, null for a pod no longer in the registry
     */
    public Outcome apply(String meetingId, long epoch, DistributionPlan plan, Map<String, TrackInfo> tracks,
                         Function<String, String> urlOf, Map<String, AppliedRelay> applied) {
        int created = 0, deleted = 0, failed = 0;
        List<Relay> prepared = new ArrayList<>();
        Set<String> wanted = new HashSet<>();
        for (DistributionPlan.TrackPlan t : plan.tracks().values()) {
            TrackInfo info = tracks.get(t.trackId());
            if (info == null) continue;
            // hops out of the origin first: a hub relays on only what already reaches it
            List<Relay> hops = new ArrayList<>(t.relays());
            hops.sort((a, b) -> Boolean.compare(!a.from().equals(t.origin()), !b.from().equals(t.origin())));
            for (Relay hop : hops) {
                String key = AppliedRelay.key(hop.trackId(), hop.from(), hop.to());
                AppliedRelay have = applied.get(key);
                if (hop.idle()) { // nobody behind it: keep what exists for the grace, create nothing
                    if (have != null && have.epoch() == epoch) wanted.add(key);
                    continue;
                }
                List<Integer> layers = layersToSend(hop, info);
                wanted.add(key);
                if (have != null && have.epoch() == epoch && have.layers().equals(layers)) continue;
                String fromUrl = urlOf.apply(hop.from()), toUrl = urlOf.apply(hop.to());
                if (fromUrl == null || toUrl == null) {
                    failed++;
                    continue;
                }
                AppliedRelay next = new AppliedRelay(relayId(meetingId, epoch, hop), hop.trackId(), hop.from(), hop.to(),
                        layers, epoch);
                if (create(meetingId, info, !hop.from().equals(t.origin()), next, fromUrl, toUrl)) {
                    applied.put(key, next);
                    created++;
                    if (hop.state() == Relay.PathState.PREPARING) prepared.add(hop);
                } else {
                    failed++;
                }
            }
        }
        for (AppliedRelay r : new ArrayList<>(applied.values())) {
            if (wanted.contains(r.key()) && r.epoch() == epoch) continue;
            applied.remove(r.key());
            if (r.epoch() == epoch) { // an older epoch's relays are fenced by the SFUs themselves
                remove(r, urlOf);
                deleted++;
            }
        }
        return new Outcome(created, deleted, failed, prepared);
    }

    /** Ends every relay in {@code applied} (the meeting ended here or nobody is placed any more). */
    public int removeAll(Map<String, AppliedRelay> applied, Function<String, String> urlOf) {
        int n = 0;
        for (AppliedRelay r : new ArrayList<>(applied.values())) {
            remove(r, urlOf);
            applied.remove(r.key());
            n++;
        }
        return n;
    }

    /**
     * The layers a hop carries: 0 up to the highest its receivers want (audio and non-simulcast video: layer 0), so
     * the receiving SFU can still step a subscriber down without another relay request.
     */
    static List<Integer> layersToSend(Relay hop, TrackInfo info) {
        int top = hop.layers().isEmpty() ? 0 : Math.min(hop.layers().last(), info.topLayer());
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i <= top; i++) out.add(i);
        return out;
    }

    /** Relay ids name the hop and the epoch: a new owner's relays never collide with (or replace) the old one's. */
    static String relayId(String meetingId, long epoch, Relay hop) {
        String name = meetingId + "|" + epoch + "|" + hop.trackId() + "|" + hop.from() + "|" + hop.to();
        return "r-" + UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8));
    }

    private boolean create(String meetingId, TrackInfo info, boolean forwardRelayed, AppliedRelay r, String fromUrl, String toUrl) {
        ObjectNode srtp = srtpKey();
        ObjectNode in = JsonNodeFactory.instance.objectNode();
        in.put("relay_id", r.relayId()).put("meeting_id", meetingId).put("controller_epoch", r.epoch())
                .put("origin_sfu", r.from());
        in.set("srtp", srtp);
        ObjectNode track = in.putArray("tracks").addObject().put("track_id", r.trackId()).put("kind", info.kind())
                .put("simulcast_layers", info.simulcastLayers());
        ArrayNode layers = track.putArray("layers");
        r.layers().forEach(layers::add);
        RelayCalls.Answer accepted = calls.accept(toUrl, in);
        if (!accepted.ok() || accepted.body() == null) {
            LOG.warn("relay {} of meeting {}: {} refused the receiving end ({} {})", r.relayId(), meetingId, r.to(),
                    accepted.status(), accepted.code());
            return false;
        }
        JsonNode a = accepted.body();
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        out.put("relay_id", r.relayId()).put("meeting_id", meetingId).put("controller_epoch", r.epoch())
                .put("target_sfu", r.to()).put("rtcp_ssrc", a.path("rtcp_ssrc").asLong())
                .put("forward_relayed", forwardRelayed);
        out.putObject("target").put("address", a.path("address").asText()).put("udp_port", a.path("udp_port").asInt());
        out.set("srtp", srtp);
        out.set("tracks", a.path("tracks"));
        RelayCalls.Answer sent = calls.send(fromUrl, out);
        if (!sent.ok()) {
            // a hub gets a relayed track only once its first packet arrived: tried again next round
            LOG.info("relay {} of meeting {}: {} refused the sending end ({} {}); receiving end closed", r.relayId(),
                    meetingId, r.from(), sent.status(), sent.code());
            calls.delete(toUrl, r.relayId(), r.epoch());
            return false;
        }
        LOG.info("relay {} of meeting {}: {} -> {} track {} layers {} (epoch {})", r.relayId(), meetingId, r.from(),
                r.to(), r.trackId(), r.layers(), r.epoch());
        return true;
    }

    /** The origin end first (nothing more is sent), then the receiving end (its subscribers see the track go). */
    private void remove(AppliedRelay r, Function<String, String> urlOf) {
        String from = urlOf.apply(r.from()), to = urlOf.apply(r.to());
        if (from != null) calls.delete(from, r.relayId(), r.epoch());
        if (to != null) calls.delete(to, r.relayId(), r.epoch());
        LOG.info("relay {}: {} -> {} track {} removed", r.relayId(), r.from(), r.to(), r.trackId());
    }

    /** A fresh AES-128-GCM master key and salt (28 bytes), base64: never logged. */
    private static ObjectNode srtpKey() {
        byte[] k = new byte[28];
        RANDOM.nextBytes(k);
        ObjectNode s = JsonNodeFactory.instance.objectNode();
        s.put("profile", "AEAD_AES_128_GCM").put("key", Base64.getEncoder().encodeToString(k));
        return s;
    }

    /** What the owner's state shows of the relays: no keys. */
    static Map<String, Object> describe(AppliedRelay r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("relay_id", r.relayId());
        m.put("track_id", r.trackId());
        m.put("from_sfu", r.from());
        m.put("to_sfu", r.to());
        m.put("layers", r.layers());
        m.put("controller_epoch", r.epoch());
        return m;
    }
}
