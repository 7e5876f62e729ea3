package dev.parley.platform.internal;

/** Paths of the internal HTTP API (docs/internal-api.md). */
public final class InternalPaths {
    public static final String BASE = "/internal/v1";
    public static final String TRANSPORTS = BASE + "/transports";
    public static final String GRANTS = BASE + "/grants";
    /** Several meetings' grants in one request (a controller's renewal round, one request per SFU). */
    public static final String GRANT_BATCH = GRANTS + "/batch";
    public static final String DRAIN = BASE + "/drain";
    public static final String STATE = BASE + "/state";

    private InternalPaths() {
    }

    public static String participant(String meetingId, String participantId, long epoch) {
        return BASE + "/meetings/" + meetingId + "/participants/" + participantId + "?controller_epoch=" + epoch;
    }

    public static String subscriptions(String meetingId, String participantId) {
        return BASE + "/meetings/" + meetingId + "/participants/" + participantId + "/subscriptions";
    }
}
