package dev.parley.controller.coalesce;

import com.fasterxml.jackson.databind.JsonNode;
import dev.parley.controller.http.ApiException;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * What a paged socket watches: the participants its client shows (its roster page and the speakers on its
 * stage), named in a {@code roster_page} message, plus, always, itself and whoever was ever a host or co-host.
 * Only these participants' roster changes reach the socket in full; everything else is counted in the
 * {@code roster_summary}.
 */
public final class RosterWatch {
    /** The most participants one {@code roster_page} may name (a page of the People panel plus a stage). */
    public static final int MAX_IDS = 200;
    public static final RosterWatch NONE = new RosterWatch(Set.of());

    private final Set<String> ids;

    private RosterWatch(Set<String> ids) {
        this.ids = Set.copyOf(ids);
    }

    public int size() {
        return ids.size();
    }

    /**
     * The watch set of a {@code roster_page} message: {@code participant_ids}, an array of at most {@link #MAX_IDS}
     * participant ids (UUIDs; duplicates count once). Anything else is a 400-style {@code invalid_roster_page}.
     */
    public static RosterWatch parse(JsonNode msg) {
        JsonNode list = msg.get("participant_ids");
        if (list == null || !list.isArray()) {
            throw invalid("'participant_ids' must be an array of participant ids");
        }
        if (list.size() > MAX_IDS) {
            throw invalid("at most " + MAX_IDS + " participant ids per roster page");
        }
        Set<String> ids = new HashSet<>();
        for (JsonNode id : list) {
            if (!id.isTextual() || id.asText().length() != 36) {
                throw invalid("participant ids are UUID strings");
            }
            try {
                ids.add(UUID.fromString(id.asText()).toString());
            } catch (IllegalArgumentException e) {
                throw invalid("participant ids are UUID strings");
            }
        }
        return new RosterWatch(ids);
    }

    private static ApiException invalid(String detail) {
        return ApiException.badRequest("invalid_roster_page", detail);
    }

    /** Whether a change of {@code participantId} reaches a socket of {@code self} watching this set. */
    public boolean wants(String participantId, String self, RosterTally tally) {
        return ids.contains(participantId) || participantId.equals(self) || tally.wasModerator(participantId);
    }

    /** The part of a run's merged changes this socket gets in full (empty: none; the same map: all). */
    public Map<String, RosterChange> filter(Map<String, RosterChange> changes, String self, RosterTally tally) {
        Map<String, RosterChange> out = null;
        for (Map.Entry<String, RosterChange> e : changes.entrySet()) {
            if (wants(e.getKey(), self, tally)) {
                if (out == null) {
                    out = new java.util.LinkedHashMap<>();
                }
                out.put(e.getKey(), e.getValue());
            }
        }
        return out == null ? Map.of() : out;
    }
}
