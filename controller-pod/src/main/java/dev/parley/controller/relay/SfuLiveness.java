package dev.parley.controller.relay;

import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Which SFUs on our relay paths are down before the registry says so. A killed SFU keeps its registry entry until its
 * lease runs out (seconds) while its relays carry nothing, so the driver probes the SFUs of its meetings that span
 * SFUs each round ({@code GET /healthz}, asynchronous; any HTTP answer means alive). A refused connection marks the
 * pod down at once (nothing listens: the process is gone); unanswered probes do after {@value #TIMEOUTS_DOWN} in a
 * row (a busy SFU may be slow).
 * A pod marked down is reported once; the next successful probe brings it back.
 */
final class SfuLiveness {
    static final int TIMEOUTS_DOWN = 2;
    private static final Duration TIMEOUT = Duration.ofMillis(800);
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SfuLiveness.class);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).version(HttpClient.Version.HTTP_1_1).build();
    private final Set<String> down = ConcurrentHashMap.newKeySet();
    private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
    private final Map<String, Integer> timeouts = new ConcurrentHashMap<>();
    private final Consumer<String> onDown;

    SfuLiveness(Consumer<String> onDown) {
        this.onDown = onDown;
    }

    boolean down(String pod) {
        return down.contains(pod);
    }

    /** Probes {@code pod} at {@code baseUrl} unless a probe of it is still out. */
    void probe(String pod, String baseUrl) {
        if (!inFlight.add(pod)) return;
        HttpRequest req = HttpRequest.newBuilder(URI.create(baseUrl + "/healthz")).timeout(TIMEOUT).GET().build();
        try {
            http.sendAsync(req, HttpResponse.BodyHandlers.discarding()).whenComplete((r, e) -> {
                inFlight.remove(pod);
                if (e == null) { // any answer: the process lives (draining and readiness are the registry's business)
                    timeouts.remove(pod);
                    if (down.remove(pod)) LOG.info("SFU {} answers its health probe again", pod);
                } else if (refused(e) || timeouts.merge(pod, 1, Integer::sum) >= TIMEOUTS_DOWN) {
                    markDown(pod, e.getClass().getSimpleName());
                }
            });
        } catch (RuntimeException e) {
            inFlight.remove(pod);
        }
    }

    private void markDown(String pod, String why) {
        if (!down.add(pod)) return;
        LOG.warn("SFU {} is down ({}): its relays are re-planned", pod, why);
        onDown.accept(pod);
    }

    /** Pods gone from the registry need no verdict any more (a pod of the same name starts afresh). */
    void retain(Set<String> registered) {
        down.retainAll(registered);
        timeouts.keySet().retainAll(registered);
    }

    private static boolean refused(Throwable e) {
        boolean connect = false;
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.net.http.HttpTimeoutException) return false; // a slow connect is no verdict
            if (t instanceof ConnectException) connect = true;
        }
        return connect;
    }
}
