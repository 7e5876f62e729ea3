package dev.parley.controller.transport;

import com.nimbusds.jose.jwk.ECKey;
import dev.parley.controller.config.ParleyConfig;
import dev.parley.platform.ticket.TicketKeys;
import dev.parley.platform.ticket.TicketSigner;
import dev.parley.platform.ticket.TicketVerifier;
import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The ES256 key that signs connect tickets: configured, or generated in local mode. */
@Factory
public class TicketBeans {
    private static final Logger LOG = LoggerFactory.getLogger(TicketBeans.class);

    @Singleton
    ECKey ticketKey(ParleyConfig cfg) {
        if (cfg.ticketPrivateJwk() != null) {
            return TicketKeys.parsePrivate(cfg.ticketPrivateJwk());
        }
        if (!cfg.localMode()) {
            throw new IllegalStateException("PARLEY_TICKET_PRIVATE_JWK is required outside local mode");
        }
        ECKey k = TicketKeys.generate();
        // the public half is not secret: SFUs need it (PARLEY_TICKET_PUBLIC_JWK)
        LOG.warn("local mode: generated connect-ticket key; public JWK: {}", k.toPublicJWK().toJSONString());
        return k;
    }

    @Singleton
    TicketSigner ticketSigner(ECKey key) {
        return new TicketSigner(key);
    }

    @Singleton
    TicketVerifier ticketVerifier(ECKey key) {
        return new TicketVerifier(key.toPublicJWK());
    }
}
