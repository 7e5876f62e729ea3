package dev.parley.controller.auth;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.parley.controller.http.ApiException;
import dev.parley.controller.http.JsonBody;
import dev.parley.controller.http.Responses;
import dev.parley.controller.config.ParleyConfig;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Consumes;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Post;
import io.micronaut.security.annotation.Secured;
import io.micronaut.security.rules.SecurityRule;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.UUID;

/**
 * {@code POST /v1/dev/tokens}: mints test bearer tokens in local mode only (loopback bind, or forced).
 * Anywhere else it answers 404 as if it did not exist.
 */
@Controller("/v1/dev/tokens")
@Secured(SecurityRule.IS_ANONYMOUS)
public class DevTokenController {
    private static final Logger LOG = LoggerFactory.getLogger(DevTokenController.class);
    private final ParleyConfig cfg;

    public DevTokenController(ParleyConfig cfg) {
        this.cfg = cfg;
    }

    @Post
    @Consumes(MediaType.APPLICATION_JSON)
    public HttpResponse<String> mint(@Nullable @Body String body) {
        if (!cfg.devTokensEnabled() || cfg.jwtHmacSecret() == null) {
            throw ApiException.notFound("not_found", "no such resource");
        }
        ObjectNode req = JsonBody.object(body);
        UUID tenant = JsonBody.uuid(req, "tenant", true);
        UUID principal = JsonBody.uuid(req, "principal", true);
        String name = JsonBody.text(req, "name", false, 100);
        try {
            SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), new JWTClaimsSet.Builder()
                    .subject(principal.toString())
                    .claim("tid", tenant.toString())
                    .claim("name", name == null ? "" : name)
                    .issueTime(new Date())
                    .expirationTime(new Date(System.currentTimeMillis() + 12 * 3600_000L))
                    .build());
            jwt.sign(new MACSigner(cfg.jwtHmacSecret().getBytes(StandardCharsets.UTF_8)));
            LOG.warn("LOCAL MODE: minted a dev token for principal {} of tenant {}", principal, tenant);
            ObjectNode out = JsonBody.obj();
            out.put("token", jwt.serialize());
            return Responses.json(200, out);
        } catch (Exception e) {
            throw new IllegalStateException("dev token signing failed", e);
        }
    }
}
