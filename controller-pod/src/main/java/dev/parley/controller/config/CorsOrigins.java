package dev.parley.controller.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The web origins allowed to call the REST API from another origin ({@code PARLEY_CORS_ALLOWED_ORIGINS},
 * comma-separated exact origins such as {@code https://app.example.org}). Empty (the default) leaves
 * Micronaut's CORS handling off: only pages served by the controller itself can read its answers.
 *
 * <p>No wildcard and no pattern on purpose: an API that takes bearer tokens should name the apps it trusts.
 * Credentials (cookies) are not allowed; the SDK sends {@code Authorization: Bearer}.
 */
public record CorsOrigins(List<String> origins) {

    /** Request headers the SDK sends across origins (besides the CORS-safelisted ones). */
    static final List<String> ALLOWED_HEADERS = List.of("Authorization", "Content-Type", "Idempotency-Key", "Accept");
    /** Response headers the SDK reads besides the safelisted ones (429/503 pauses). */
    static final List<String> EXPOSED_HEADERS = List.of("Retry-After");
    static final List<String> ALLOWED_METHODS = List.of("GET", "POST", "PUT", "PATCH", "DELETE");
    /** How long a browser may reuse a preflight answer. */
    static final int MAX_AGE_SECONDS = 600;

    public CorsOrigins {
        origins = List.copyOf(origins);
    }

    public static CorsOrigins none() {
        return new CorsOrigins(List.of());
    }

    /**
     * Parses the comma-separated list; each entry must be {@code scheme://host[:port]} (http or https),
     * nothing else, or start-up stops with a message that names the entry.
     */
    public static CorsOrigins parse(String csv) {
        if (csv == null || csv.isBlank()) {
            return none();
        }
        List<String> out = new ArrayList<>();
        for (String raw : csv.split(",")) {
            String entry = raw.trim();
            if (!entry.isEmpty()) {
                out.add(origin(entry));
            }
        }
        return new CorsOrigins(out);
    }

    private static String origin(String entry) {
        String why = "PARLEY_CORS_ALLOWED_ORIGINS: '" + entry + "' is not an origin (scheme://host[:port], "
                + "no path, no wildcard)";
        URI u;
        try {
            u = new URI(entry);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(why, e);
        }
        String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
        boolean bare = (u.getRawPath() == null || u.getRawPath().isEmpty()) && u.getRawQuery() == null
                && u.getRawFragment() == null && u.getRawUserInfo() == null;
        if (!(scheme.equals("http") || scheme.equals("https")) || u.getHost() == null || !bare) {
            throw new IllegalArgumentException(why);
        }
        // Browsers send the Origin header lower-case and without a default port; compare in that form.
        int port = u.getPort();
        boolean defaultPort = port == -1 || (scheme.equals("http") && port == 80) || (scheme.equals("https") && port == 443);
        return scheme + "://" + u.getHost().toLowerCase(Locale.ROOT) + (defaultPort ? "" : ":" + port);
    }

    public boolean enabled() {
        return !origins.isEmpty();
    }

    /** Micronaut CORS settings (one configuration, "api") when enabled; nothing otherwise. */
    public void addMicronautProperties(Map<String, Object> p) {
        if (!enabled()) {
            return;
        }
        String c = "micronaut.server.cors.configurations.api.";
        p.put("micronaut.server.cors.enabled", true);
        p.put(c + "allowed-origins", origins);
        p.put(c + "allowed-methods", ALLOWED_METHODS);
        p.put(c + "allowed-headers", ALLOWED_HEADERS);
        p.put(c + "exposed-headers", EXPOSED_HEADERS);
        p.put(c + "allow-credentials", false);
        p.put(c + "max-age", MAX_AGE_SECONDS);
    }

    @Override
    public String toString() {
        return enabled() ? origins.toString() : "off";
    }
}
