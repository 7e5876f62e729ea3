package dev.parley.controller.transport;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.config.ParleyConfig;
import dev.parley.platform.etcd.RegistryWatcher;
import dev.parley.platform.etcd.TurnEntry;
import jakarta.inject.Singleton;

import dev.parley.platform.turn.TurnCredential;
import dev.parley.platform.turn.TurnCredentials;
import dev.parley.platform.turn.TurnSecrets;

import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * ICE servers for a transport: TURN REST credentials (platform-core {@code dev.parley.platform.turn}:
 * username {@code {expiry}:{participant_id}}, HMAC-SHA1 with the current secret) for the configured TURN URLs
 * and the ACTIVE TURN pods of our region.
 */
@Singleton
public class IceServers {
    /**
     * Parley TURN caps an allocation at its credential's expiry and refuses Refresh with an expired credential,
     * so this is the longest a relayed call can last without new credentials. It covers a long meeting; the
     * exposure of a leaked credential is bounded because the relay only reaches SFU pods, which admit media
     * only with a live grant.
     */
    static final Duration CREDENTIAL_LIFETIME = Duration.ofHours(12);
    private final ParleyConfig cfg;
    private final RegistryWatcher<TurnEntry> turns;
    private final TurnCredentials credentials;
    private final Clock clock = Clock.systemUTC();

    public IceServers(ParleyConfig cfg, RegistryWatcher<TurnEntry> turns) {
        this.cfg = cfg;
        this.turns = turns;
        this.credentials = cfg.turnSecrets().isEmpty() ? null
                : new TurnCredentials(TurnSecrets.parse(String.join(",", cfg.turnSecrets())));
    }

    public ArrayNode forParticipant(String participantId) {
        ArrayNode out = JsonBody.JSON.createArrayNode();
        Set<String> urls = new LinkedHashSet<>(cfg.turnUrls());
        for (TurnEntry t : turns.entries().values()) {
            if (t.isActive() && t.urls() != null) {
                urls.addAll(t.urls());
            }
        }
        if (urls.isEmpty() || credentials == null) {
            return out;
        }
        TurnCredential c = credentials.generate(participantId, CREDENTIAL_LIFETIME, clock.instant());
        ObjectNode s = out.addObject();
        ArrayNode u = s.putArray("urls");
        urls.forEach(u::add);
        s.put("username", c.username());
        s.put("credential", c.password());
        return out;
    }
}
