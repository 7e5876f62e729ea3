package dev.parley.sfu.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.platform.grant.Grant;
import dev.parley.platform.grant.PublishRights;
import dev.parley.sfu.routing.ControlException;
import dev.parley.sfu.routing.Router;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * TEST ONLY ({@code PARLEY_SFU_TEST_HOOKS=true}, reached through {@link InternalApi}): an SFU that ignores a removal.
 * {@code POST /internal/v1/test/keep-after-removal {meeting_id, participant_id}} marks a participant; when the
 * controller later releases it ({@code DELETE .../participants/{pid}}) its transports and subscriptions stay, and
 * a subscribe grant is renewed every second (at a version no real grant reaches) for {@link #KEEP_FOR_MS}.
 * The e2ee browser test uses it to show that a removed client whose media path outlives its removal still decodes
 * nothing sent under the keys made after it left (docs/e2ee.md): what a compromised SFU could do.
 */
final class KeptMediaPaths implements AutoCloseable {
    static final String PATH = "/internal/v1/test/keep-after-removal";
    private static final Logger LOG = LoggerFactory.getLogger(KeptMediaPaths.class);
    private static final long KEEP_FOR_MS = 120_000;
    private static final long RENEW_MS = 1000;

    /** "meeting/participant" marked by the test. */
    private final Set<String> marked = ConcurrentHashMap.newKeySet();
    private final Map<String, ScheduledFuture<?>> renewing = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "sfu-test-kept-media");
        t.setDaemon(true);
        return t;
    });

    /** The POST: marks the participant named by the body; answers what was marked. */
    Map<String, Object> mark(JsonNode body) {
        JsonFields.body(body);
        String mid = JsonFields.text(body, "meeting_id", ""), pid = JsonFields.text(body, "participant_id", "");
        marked.add(mid + "/" + pid);
        return Map.of("meeting_id", mid, "participant_id", pid, "kept_after_removal", true);
    }

    /**
     * A removal of a marked participant: nothing is released, its subscribe grant is kept alive instead. Returns
     * false (the removal goes ahead as usual) for every participant the test did not mark.
     */
    boolean keepsOnRemoval(Router router, String mid, String pid, long epoch) {
        String key = mid + "/" + pid;
        if (!marked.remove(key)) return false;
        LOG.warn("TEST HOOK: participant removal ignored, its media path is kept for {} s", KEEP_FOR_MS / 1000);
        long until = System.nanoTime() + KEEP_FOR_MS * 1_000_000L;
        Grant subscribeOnly = new Grant(pid, Long.MAX_VALUE, epoch, PublishRights.NONE, true, Grant.MAX_TTL_MS);
        Runnable renew = () -> {
            if (System.nanoTime() - until > 0) { stop(key); return; }
            try {
                router.call(() -> router.control().putGrants(mid, epoch, List.of(subscribeOnly)));
            } catch (ControlException e) {
                stop(key); // a newer owner (epoch): the meeting moved on, nothing to keep
            } catch (RuntimeException e) {
                LOG.warn("TEST HOOK: could not renew the kept grant: {}", e.toString());
            }
        };
        renewing.put(key, timer.scheduleAtFixedRate(renew, 0, RENEW_MS, TimeUnit.MILLISECONDS));
        return true;
    }

    private void stop(String key) {
        ScheduledFuture<?> f = renewing.remove(key);
        if (f != null) f.cancel(false);
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
