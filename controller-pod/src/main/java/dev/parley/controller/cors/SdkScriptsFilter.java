package dev.parley.controller.cors;

import dev.parley.controller.config.CorsOrigins;
import dev.parley.controller.config.ParleyConfig;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpMethod;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.ResponseFilter;
import io.micronaut.http.annotation.ServerFilter;

/**
 * With CORS on, the SDK's scripts ({@code /sdk/**}) may be imported by a page on any origin: they are
 * public code and carry no credentials. Calling the API still needs an allowed origin (Micronaut's
 * {@code CorsFilter}), so an app on another origin gets a clear CORS refusal at its first REST call rather
 * than a failed import. Requests from an allowed origin are left to {@code CorsFilter} (one
 * Access-Control-Allow-Origin header, never two).
 */
@ServerFilter("/sdk/**")
public final class SdkScriptsFilter {
    private final CorsOrigins origins;

    SdkScriptsFilter(ParleyConfig config) {
        this.origins = config.corsAllowedOrigins();
    }

    @ResponseFilter
    public void anyOriginMayImport(HttpRequest<?> request, MutableHttpResponse<?> response) {
        String origin = request.getHeaders().get(HttpHeaders.ORIGIN);
        if (!origins.enabled() || origin == null || origins.origins().contains(origin)) {
            return;
        }
        HttpMethod m = request.getMethod();
        if ((m == HttpMethod.GET || m == HttpMethod.HEAD) && !response.getHeaders().contains(HttpHeaders.ACCESS_CONTROL_ALLOW_ORIGIN)) {
            response.getHeaders().set(HttpHeaders.ACCESS_CONTROL_ALLOW_ORIGIN, "*");
        }
    }
}
