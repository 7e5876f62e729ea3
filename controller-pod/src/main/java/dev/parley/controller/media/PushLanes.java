package dev.parley.controller.media;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;

/**
 * At most one grant push request in flight per SFU. A meeting that needs a push while one is in flight waits
 * for it and then goes out together with every other meeting that came meanwhile, in ONE request: under load
 * the number of push requests stops growing with the number of commits, and when idle nothing waits. The
 * sender reads each meeting's state when it sends, so a meeting marked twice is sent once, with its latest state.
 */
final class PushLanes {
    private static final Logger LOG = LoggerFactory.getLogger(PushLanes.class);

    /** Meetings waiting for the next request to one SFU, and whether a request to it is in flight. */
    private static final class Lane {
        final Set<UUID> dirty = new LinkedHashSet<>();
        boolean inFlight;
    }

    private final Map<String, Lane> lanes = new ConcurrentHashMap<>();
    /** Sends the grants of these meetings to that SFU; completes when the SFU answered (or the request failed). */
    private final BiFunction<String, List<UUID>, CompletableFuture<Void>> sender;

    PushLanes(BiFunction<String, List<UUID>, CompletableFuture<Void>> sender) {
        this.sender = sender;
    }

    /** The meeting's grants at this SFU must be pushed: now, or right after the request in flight. */
    void mark(String pod, UUID meetingId) {
        Lane lane = lanes.computeIfAbsent(pod, k -> new Lane());
        synchronized (lane) {
            lane.dirty.add(meetingId);
            if (lane.inFlight) {
                return; // goes with the next request, when the one in flight completes
            }
            lane.inFlight = true;
        }
        drain(pod, lane);
    }

    /** Sends what is marked as one request; when it completes, the next (until nothing is marked). */
    private void drain(String pod, Lane lane) {
        while (true) {
            List<UUID> ids;
            synchronized (lane) {
                if (lane.dirty.isEmpty()) {
                    lane.inFlight = false;
                    return;
                }
                ids = new ArrayList<>(lane.dirty);
                lane.dirty.clear();
            }
            CompletableFuture<Void> sent;
            try {
                sent = sender.apply(pod, ids);
            } catch (RuntimeException e) {
                LOG.warn("grant push to {} failed", pod, e); // the next renewal round sends these grants again
                continue;
            }
            if (!sent.isDone()) {
                sent.whenComplete((r, t) -> drain(pod, lane));
                return;
            }
        }
    }
}
