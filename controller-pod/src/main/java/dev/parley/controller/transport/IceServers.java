package dev.parley.controller.transport;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.api.JsonBody;
import dev.parley.controller.config.ParleyConfig;
import dev.parley.platform.etcd.RegistryWatcher;
import dev.parley.platform.etcd.TurnEntry;
import jakarta.inject.Singleton;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * ICE servers for a transport: TURN REST credentials (username {@code {expiry}:{participant_id}},
 * password base64(HMAC-SHA1(current secret, username))) for the configured TURN URLs and the ACTIVE
 * TURN pods of our region. Stop-gap until platform-core's {@code dev.parley.platform.turn} lands.
 */
@Singleton
public class IceServers {
    static final long CREDENTIAL_SECONDS = 600;
    private final ParleyConfig cfg;
    private final RegistryWatcher<TurnEntry> turns;
    private final Clock clock = Clock.systemUTC();

    public IceServers(ParleyConfig cfg, RegistryWatcher<TurnEntry> turns) {
        this.cfg = cfg;
        this.turns = turns;
    }

    public ArrayNode forParticipant(String participantId) {
        ArrayNode out = JsonBody.JSON.createArrayNode();
        Set<String> urls = new LinkedHashSet<>(cfg.turnUrls());
        for (TurnEntry t : turns.entries().values()) {
            if (t.isActive() && t.urls() != null) {
                urls.addAll(t.urls());
            }
        }
        if (urls.isEmpty() || cfg.turnSecrets().isEmpty()) {
            return out;
        }
        String username = (clock.instant().getEpochSecond() + CREDENTIAL_SECONDS) + ":" + participantId;
        ObjectNode s = out.addObject();
        ArrayNode u = s.putArray("urls");
        List<String> list = new ArrayList<>(urls);
        list.forEach(u::add);
        s.put("username", username);
        s.put("credential", password(cfg.turnSecrets().get(0), username));
        return out;
    }

    static String password(String secret, String username) {
        try {
            Mac mac = Mac.getInstance("HmacSHA1");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
            return Base64.getEncoder().encodeToString(mac.doFinal(username.getBytes(StandardCharsets.UTF_8)));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
