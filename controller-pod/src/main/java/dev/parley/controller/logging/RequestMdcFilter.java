package dev.parley.controller.logging;

import dev.parley.controller.config.ParleyConfig;
import io.micronaut.core.order.Ordered;
import io.micronaut.core.propagation.MutablePropagatedContext;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;

/**
 * Puts {@link RequestMdc} on every HTTP request. The MDC travels as Micronaut's propagated context
 * ({@link RequestMdcContext}), so it is set on whichever thread runs the request (event loop, then the blocking
 * executor of {@code @ExecuteOn}) and the thread's previous values come back when that scope ends: nothing of one
 * request leaks into the next on a pooled thread.
 */
@ServerFilter(ServerFilter.MATCH_ALL_PATTERN)
public class RequestMdcFilter implements Ordered {
    private final String pod;

    public RequestMdcFilter(ParleyConfig cfg) {
        this.pod = cfg.podName();
    }

    @RequestFilter
    public void putMdc(HttpRequest<?> request, MutablePropagatedContext context) {
        context.add(RequestMdc.contextFor(request.getPath(), pod));
    }

    @Override
    public int getOrder() {
        return HIGHEST_PRECEDENCE; // before security, so its lines carry the MDC too
    }
}
